package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/apis/core"
)

// The internal core.Pod that the kubelet's applyDefaults hashes (hash.DeepHashObject: go-spew's
// %#v of the pod, every field printed with its Go type), as reflect sees it in the release this
// binary links, for the TypeScript printer of that dump (src/sources/manifest/spew.ts):
// every type reachable from core.Pod, unexported fields included (spew prints them), with
// reflect's Type.String() as spew prints it. Each struct field of a core type that the v1 ->
// internal conversion fills by name (conversion-gen's autoConvert pairs fields by Go name) also
// names the v1 field it is read from: its JSON name in the v1 struct, or "" when both sides
// embed it (its fields are the v1 object's own). A field without a v1 counterpart is listed as
// such, so that a conversion the printer does not port cannot go unnoticed.

// SpewType is one Go type. Kind is reflect's Kind.String() ("struct", "ptr", "slice", "map",
// "string", "bool", "int32", "uint64", ...).
type SpewType struct {
	Name   string       `json:"name"`
	Kind   string       `json:"kind"`
	Elem   string       `json:"elem,omitempty"`
	Key    string       `json:"key,omitempty"`
	Fields []SpewField  `json:"fields,omitempty"`
	paired reflect.Type // the v1 type this one is converted from, if any
}

// SpewField is one struct field in declaration order (spew's order), written as
// [name, type] or [name, type, v1 JSON name] or, for a field of a converted type that the v1
// type lacks, [name, type, null].
type SpewField struct {
	Name string
	Type string
	// From is the v1 JSON name the field is converted from ("" for an embedded struct), nil when
	// v1 has no such field; Unpaired tells the two nils apart.
	From     *string
	Unpaired bool
}

// MarshalJSON writes the compact form described on SpewField.
func (f SpewField) MarshalJSON() ([]byte, error) {
	switch {
	case f.From != nil:
		return json.Marshal([]any{f.Name, f.Type, *f.From})
	case f.Unpaired:
		return json.Marshal([]any{f.Name, f.Type, nil})
	default:
		return json.Marshal([]any{f.Name, f.Type})
	}
}

type spewWalker struct{ types map[string]*SpewType }

// visit describes t; paired is the v1 type whose value converts into t (nil when t is not a
// converted type: a v1 type reached through a type both sides share, or a leaf).
func (w *spewWalker) visit(t, paired reflect.Type) string {
	name := t.String()
	if seen, ok := w.types[name]; ok {
		if paired != nil && seen.paired != nil && seen.paired != paired {
			panic(fmt.Sprintf("%s is converted from both %s and %s", name, seen.paired, paired))
		}
		return name
	}
	out := &SpewType{Name: name, Kind: t.Kind().String(), paired: paired}
	w.types[name] = out
	if paired != nil && paired.Kind() != t.Kind() {
		panic(fmt.Sprintf("%s (%s) is converted from %s (%s)", name, t.Kind(), paired, paired.Kind()))
	}
	elemPair := func(pt reflect.Type) reflect.Type {
		if pt == nil {
			return nil
		}
		return pt.Elem()
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		out.Elem = w.visit(t.Elem(), converted(t.Elem(), elemPair(paired)))
	case reflect.Map:
		out.Key = w.visit(t.Key(), nil)
		out.Elem = w.visit(t.Elem(), converted(t.Elem(), elemPair(paired)))
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			field := SpewField{Name: f.Name}
			var from reflect.Type
			switch {
			case paired != nil:
				if pf, ok := paired.FieldByName(f.Name); ok && len(pf.Index) == 1 {
					if field.From = jsonName(pf); field.From == nil {
						panic(fmt.Sprintf("%s.%s: a v1 field without a JSON name", paired, pf.Name))
					}
					from = pf.Type
				} else {
					field.Unpaired = true
				}
			case f.IsExported():
				// A type both sides share is decoded into as it is: its own JSON names.
				field.From = jsonName(f)
			}
			field.Type = w.visit(f.Type, converted(f.Type, from))
			out.Fields = append(out.Fields, field)
		}
	}
	return name
}

// jsonName is the JSON name encoding/json reads f of struct t by: "" for an embedded struct
// (its fields are the outer object's), nil for a field without one (skipped, or read only by
// the type's own UnmarshalJSON: IntOrString's).
func jsonName(f reflect.StructField) *string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || (name == "" && !f.Anonymous) {
		return nil
	}
	return &name
}

var corePackage = reflect.TypeFor[core.Pod]().PkgPath()

// converted is the v1 type a value of t is converted from: from itself when t is an internal
// core type (or a composite of one); nil when t is the very type v1 uses (metav1, resource,
// intstr: copied as they are) or has no v1 source.
func converted(t, from reflect.Type) reflect.Type {
	if from == nil || from == t || !mentionsCore(t) {
		return nil
	}
	return from
}

// mentionsCore: t is, or is built of, a type of the internal core package.
func mentionsCore(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mentionsCore(t.Elem())
	case reflect.Map:
		return mentionsCore(t.Key()) || mentionsCore(t.Elem())
	}
	return t.PkgPath() == corePackage
}

// WriteInternalPodTypes prints the types of core.Pod, paired with v1.Pod, sorted by name, as
// {"root": "*core.Pod", "types": [...]} (one type per line).
func WriteInternalPodTypes(w io.Writer) error {
	walk := &spewWalker{types: map[string]*SpewType{}}
	root := walk.visit(reflect.TypeFor[*core.Pod](), reflect.TypeFor[*v1.Pod]())
	types := make([]*SpewType, 0, len(walk.types))
	for _, t := range walk.types {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	var b strings.Builder
	rootJSON, _ := json.Marshal(root)
	fmt.Fprintf(&b, "{\"root\":%s,\"types\":[\n", rootJSON)
	for i, t := range types {
		line, err := json.Marshal(t)
		if err != nil {
			return err
		}
		b.Write(line)
		if i < len(types)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
