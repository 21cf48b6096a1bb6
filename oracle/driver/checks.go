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

	modes := constNames(parseFile(t, filepath.Join(dir, "config", "config.go")), "PodConfigNotificationMode")
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
