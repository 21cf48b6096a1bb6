// Command schema prints v1.Pod and v1.PodList, as the k8s.io/api its go.mod pins declares them,
// the way encoding/json sees them, for the TypeScript decoder of static pod manifests
// (src/sources/manifest/typed.ts): the JSON name of every field, in the order Go marshals them,
// with embedded structs flattened as encoding/json flattens them, and for every type its Go name
// (which the decoder's error messages print) and its kind. One go.mod per kubelet minor:
// versions/v<minor>.mod, selected with go run -modfile.
package main

import (
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Type is one Go type. Kind is one of: struct, ptr, slice, map, string, bool, int32, int64, or
// "custom" for a type with its own json.Unmarshaler (Quantity, IntOrString, Time, ...), which
// the decoder knows by Name. Any other kind is refused, so that a new one cannot go unnoticed.
type Type struct {
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`
	Elem   string  `json:"elem,omitempty"`
	Fields []Field `json:"fields,omitempty"`
}

// Field is one JSON field of a struct, embedded fields already flattened into place. It is
// written as [json name, type name, options] with options a bit set: 1 omitempty, 2 omitzero,
// and for a field of an embedded struct a fourth element: the Go names of the embedded
// fields it is reached through, dot-separated (newer sigs.k8s.io/json print them in errors).
type Field struct {
	JSON      string
	Type      string
	OmitEmpty bool
	OmitZero  bool
	Embedded  []string
}

// MarshalJSON writes the compact form described on Field.
func (f Field) MarshalJSON() ([]byte, error) {
	options := 0
	if f.OmitEmpty {
		options |= 1
	}
	if f.OmitZero {
		options |= 2
	}
	if len(f.Embedded) > 0 {
		return json.Marshal([]any{f.JSON, f.Type, options, strings.Join(f.Embedded, ".")})
	}
	return json.Marshal([]any{f.JSON, f.Type, options})
}

var (
	unmarshaler     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

type walker struct{ types map[string]*Type }

func (w *walker) visit(t reflect.Type) string {
	name := t.String()
	if _, seen := w.types[name]; seen {
		return name
	}
	out := &Type{Name: name}
	w.types[name] = out
	switch {
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshaler):
		out.Kind = "custom"
		return name
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textUnmarshaler):
		panic(fmt.Sprintf("%s: encoding.TextUnmarshaler is not supported", name))
	}
	switch t.Kind() {
	case reflect.Struct:
		out.Kind = "struct"
		out.Fields = w.fields(t)
	case reflect.Pointer:
		out.Kind = "ptr"
		out.Elem = w.visit(t.Elem())
	case reflect.Slice:
		out.Kind = "slice"
		out.Elem = w.visit(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("%s: map key kind %s is not supported", name, t.Key().Kind()))
		}
		out.Kind = "map"
		out.Elem = w.visit(t.Elem())
	case reflect.String, reflect.Bool, reflect.Int32, reflect.Int64:
		out.Kind = t.Kind().String()
	default:
		panic(fmt.Sprintf("%s: kind %s is not supported", name, t.Kind()))
	}
	return name
}

// fields flattens t's fields as encoding/json's typeFields does for the API types: an
// anonymous struct field without a JSON name is inlined; a name given twice is refused here
// (encoding/json's dominance rules are not needed by the API types, and are not ported).
func (w *walker) fields(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() != reflect.Struct {
				panic(fmt.Sprintf("%s.%s: embedded %s is not supported", t, f.Name, ft.Kind()))
			}
			for _, inner := range w.fields(ft) {
				inner.Embedded = append([]string{f.Name}, inner.Embedded...)
				out = append(out, inner)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		field := Field{JSON: name, Type: w.visit(f.Type)}
		for _, opt := range strings.Split(opts, ",") {
			switch opt {
			case "omitempty":
				field.OmitEmpty = true
			case "omitzero":
				field.OmitZero = true
			case "", "inline":
			default:
				panic(fmt.Sprintf("%s.%s: json option %q is not supported", t, f.Name, opt))
			}
		}
		out = append(out, field)
	}
	seen := map[string]bool{}
	for _, f := range out {
		if seen[f.JSON] {
			panic(fmt.Sprintf("%s: JSON name %q given twice", t, f.JSON))
		}
		seen[f.JSON] = true
	}
	return out
}

func main() {
	if err := Write(os.Stdout, reflect.TypeFor[v1.Pod](), reflect.TypeFor[v1.PodList]()); err != nil {
		panic(err)
	}
}

// Write prints the schema of the roots, every type reachable from them, sorted by name, as
// JSON: {"roots": [...], "types": [...]}.
func Write(w io.Writer, roots ...reflect.Type) error {
	walk := &walker{types: map[string]*Type{}}
	var names []string
	for _, root := range roots {
		names = append(names, walk.visit(root))
	}
	types := make([]*Type, 0, len(walk.types))
	for _, t := range walk.types {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	var b strings.Builder
	b.WriteString("{\"roots\":")
	rootsJSON, err := json.Marshal(names)
	if err != nil {
		return err
	}
	b.Write(rootsJSON)
	b.WriteString(",\"types\":[\n")
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
	_, err = io.WriteString(w, b.String())
	return err
}
