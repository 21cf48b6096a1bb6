package driver

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// T is the part of *testing.T the checks use.
type T interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// kubeletConfigDir is pkg/kubelet/config of the k8s.io/kubernetes the calling module builds with.
func kubeletConfigDir(t T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "pkg", "kubelet")
}

func parseFile(t T, path string) *ast.File {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return file
}

// structFields are the field names and type expressions of the struct type name in file.
func structFields(t T, file *ast.File, name string) [][2]string {
	t.Helper()
	var fields [][2]string
	ast.Inspect(file, func(node ast.Node) bool {
		spec, ok := node.(*ast.TypeSpec)
		if !ok || spec.Name.Name != name {
			return true
		}
		for _, field := range spec.Type.(*ast.StructType).Fields.List {
			var typ strings.Builder
			_ = printer.Fprint(&typ, token.NewFileSet(), field.Type)
			for _, ident := range field.Names {
				fields = append(fields, [2]string{ident.Name, typ.String()})
			}
		}
		return false
	})
	return fields
}

func declaresFunc(file *ast.File, name string) bool {
	for _, decl := range file.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
			return true
		}
	}
	return false
}

func declaresType(file *ast.File, name string) bool {
	found := false
	ast.Inspect(file, func(node ast.Node) bool {
		if spec, ok := node.(*ast.TypeSpec); ok && spec.Name.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// firstParamIsLogger: the function, method or interface method name in file takes a
// klog.Logger as its first parameter.
func firstParamIsLogger(file *ast.File, name string) bool {
	var params *ast.FieldList
	ast.Inspect(file, func(node ast.Node) bool {
		switch n := node.(type) {
		case *ast.FuncDecl:
			if n.Name.Name == name {
				params = n.Type.Params
			}
		case *ast.Field:
			if fn, ok := n.Type.(*ast.FuncType); ok && len(n.Names) == 1 && n.Names[0].Name == name {
				params = fn.Params
			}
		}
		return params == nil
	})
	if params == nil || len(params.List) == 0 {
		return false
	}
	var typ strings.Builder
	_ = printer.Fprint(&typ, token.NewFileSet(), params.List[0].Type)
	return typ.String() == "klog.Logger"
}

// constNames are the constants declared with type typeName in file, in declaration order (an
// iota block: the first names the type, the rest follow it).
func constNames(file *ast.File, typeName string) []string {
	names := []string{}
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		inBlock := false
		for _, spec := range gen.Specs {
			value := spec.(*ast.ValueSpec)
			if value.Type != nil {
				ident, ok := value.Type.(*ast.Ident)
				inBlock = ok && ident.Name == typeName
			} else if len(value.Values) > 0 {
				inBlock = false
			}
			if inBlock {
				for _, name := range value.Names {
					names = append(names, name.Name)
				}
			}
		}
	}
	return names
}

// CheckAdapterAgainstSource compares what an adapter assumes with its version's source: the
// SourceURL mirror against sourceURL in http.go, the ops against kubetypes.PodOperation's
// constants, the modes against PodConfigNotificationMode's.
func CheckAdapterAgainstSource(t T, facts Facts) {
	t.Helper()
	dir := kubeletConfigDir(t)

	upstream := structFields(t, parseFile(t, filepath.Join(dir, "config", "http.go")), "sourceURL")
	mirror := reflect.TypeFor[SourceURL]()
	if len(upstream) != mirror.NumField() {
		t.Fatalf("sourceURL has %d fields upstream, SourceURL mirrors %d: %v", len(upstream), mirror.NumField(), upstream)
	}
	for i, field := range upstream {
		got := mirror.Field(i)
		want := field[1]
		mirrored := got.Type.String()
		if strings.HasPrefix(want, "chan<- ") {
			want = "chan (one pointer)"
			if got.Type.Kind() == reflect.UnsafePointer {
				mirrored = want
			}
		}
		if want == "[]byte" {
			want = "[]uint8" // how reflect spells it
		}
		if got.Name != field[0] || mirrored != want {
			t.Errorf("sourceURL field %d: upstream %s %s, mirror %s %s", i, field[0], field[1], got.Name, got.Type)
		}
	}

	ops := constNames(parseFile(t, filepath.Join(dir, "types", "pod_update.go")), "PodOperation")
	if !slices.Equal(ops, facts.Ops) {
		t.Errorf("kubetypes.PodOperation constants are %v upstream, the adapter says %v", ops, facts.Ops)
	}

	configGo := parseFile(t, filepath.Join(dir, "config", "config.go"))
	hasOp := slices.ContainsFunc(structFields(t, configGo, "sourceUpdate"), func(f [2]string) bool { return f[0] == "Op" })
	if !declaresType(configGo, "sourceUpdate") {
		podUpdate := structFields(t, parseFile(t, filepath.Join(dir, "types", "pod_update.go")), "PodUpdate")
		hasOp = slices.ContainsFunc(podUpdate, func(f [2]string) bool { return f[0] == "Op" })
	}
	if hasOp != facts.SourceUpdateHasOp {
		t.Errorf("what sources send has an Op field: %v upstream, the adapter says %v", hasOp, facts.SourceUpdateHasOp)
	}
	loggerFirst := map[string]bool{
		"NewSourceURL":       firstParamIsLogger(parseFile(t, filepath.Join(dir, "config", "http.go")), "NewSourceURL"),
		"SeenAllSources":     firstParamIsLogger(configGo, "SeenAllSources"),
		"ObservedPodOnWatch": firstParamIsLogger(configGo, "ObservedPodOnWatch"),
	}
	for name, adapterSays := range map[string]bool{
		"NewSourceURL":       facts.SourceLoggerParam,
		"SeenAllSources":     facts.SeenAllSourcesLoggerParam,
		"ObservedPodOnWatch": facts.ObserverLoggerParam,
	} {
		if loggerFirst[name] != adapterSays {
			t.Errorf("%s takes a logger first: %v upstream, the adapter says %v", name, loggerFirst[name], adapterSays)
		}
	}

	waitsForNode := declaresFunc(parseFile(t, filepath.Join(dir, "kubelet.go")), "newNodeHasSyncedFunc")
	if waitsForNode != facts.NodeSyncWaitsForNode {
		t.Errorf("the api source waits for the Node object (newNodeHasSyncedFunc): %v upstream, the adapter says %v", waitsForNode, facts.NodeSyncWaitsForNode)
	}

	modes := constNames(configGo, "PodConfigNotificationMode")
	wantModes := []string{}
	for _, mode := range modes {
		if mode != "PodConfigNotificationUnknown" {
			wantModes = append(wantModes, strings.TrimPrefix(mode, "PodConfigNotification"))
		}
	}
	gotModes := []string{}
	for _, mode := range facts.Modes {
		gotModes = append(gotModes, strings.ToUpper(mode[:1])+mode[1:])
	}
	slices.Sort(wantModes)
	slices.Sort(gotModes)
	if !slices.Equal(wantModes, gotModes) {
		t.Errorf("PodConfigNotificationMode constants are %v upstream, the adapter says %v", modes, facts.Modes)
	}
}

// CheckWitnessMetrics reports, for registry's metrics, which series the witness reads exist with
// the labels it selects on, and fails for each that does not.
func CheckWitnessMetrics(t T, registerer prometheus.Registerer, version string) {
	t.Helper()
	registered, err := RegisteredMetrics(registerer)
	if err != nil {
		t.Fatalf("%v", err)
	}
	for _, metric := range WitnessMetrics {
		labels, ok := registered[metric.Name]
		switch missing := MissingLabels(metric.Labels, labels); {
		case !ok:
			t.Errorf("%s: %s is not registered", version, metric.Name)
		case len(missing) > 0:
			t.Errorf("%s: %s has labels %v, lacks %v", version, metric.Name, labels, missing)
		default:
			t.Logf("%s: %s %s", version, metric.Name, fmt.Sprint(labels))
		}
	}
}
