package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodepilot/nodepilot/kube/quantity"
)

// valueError finds where a document that failed to decode into obj's type went wrong, and says
// so with the field path and the value, in the API server's form (spec.weight: Invalid value:
// "abc": must be an integer) instead of the decoder's Go type names. It walks the document
// beside the type and decodes each leaf alone, so the path has list indices and map keys too.
// ok is false when no single field is at fault (the document is not an object, say). Map keys
// are written as the API server writes them: requests[cpu] for built-in kinds, spec.limits.cpu
// for custom resources (crd).
func valueError(data []byte, obj any, crd bool) (*field.Error, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	key := (*field.Path).Key
	if crd {
		key = func(p *field.Path, k string) *field.Path { return p.Child(k) }
	}
	return locator{key}.locate(doc, reflect.TypeOf(obj), nil)
}

// locator walks a document beside its Go type; key extends a path by a map key.
type locator struct {
	key func(*field.Path, string) *field.Path
}

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	intOrString  = reflect.TypeFor[intstr.IntOrString]()
	timeType     = reflect.TypeFor[metav1.Time]()
	durationType = reflect.TypeFor[metav1.Duration]()
	unmarshaler  = reflect.TypeFor[json.Unmarshaler]()
)

// locate returns the first field under path (in key order) whose value t cannot hold.
func (l locator) locate(doc any, t reflect.Type, path *field.Path) (*field.Error, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if doc == nil {
		return nil, false
	}
	switch {
	case reflect.PointerTo(t).Implements(unmarshaler) || t.Kind() != reflect.Struct && t.Kind() != reflect.Slice && t.Kind() != reflect.Map:
		return decodeLeaf(doc, t, path)
	case t.Kind() == reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return invalid(path, doc, "must be an object"), true
		}
		for _, key := range slices.Sorted(maps.Keys(m)) {
			if ft, ok := fieldType(t, key); ok {
				if e, found := l.locate(m[key], ft, path.Child(key)); found {
					return e, true
				}
			}
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return decodeLeaf(doc, t, path) // []byte is a base64 string
	case t.Kind() == reflect.Slice:
		list, ok := doc.([]any)
		if !ok {
			return invalid(path, doc, "must be a list"), true
		}
		for i, item := range list {
			if e, found := l.locate(item, t.Elem(), path.Index(i)); found {
				return e, true
			}
		}
	case t.Kind() == reflect.Map:
		m, ok := doc.(map[string]any)
		if !ok {
			return invalid(path, doc, "must be an object"), true
		}
		for _, key := range slices.Sorted(maps.Keys(m)) {
			if e, found := l.locate(m[key], t.Elem(), l.key(path, key)); found {
				return e, true
			}
		}
	}
	return nil, false
}

// decodeLeaf decodes one value alone into t, and describes what t takes when it cannot. A
// quantity's exponent is checked before it is parsed, which it could otherwise take minutes to.
func decodeLeaf(doc any, t reflect.Type, path *field.Path) (*field.Error, bool) {
	if t == quantityType {
		if err := quantity.CheckExponent(fmt.Sprint(doc)); err != nil {
			return invalid(path, doc, err.Error()), true
		}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, false
	}
	err = json.Unmarshal(raw, reflect.New(t).Interface())
	if err == nil {
		return nil, false
	}
	return invalid(path, doc, expected(t, err)), true
}

// expected says what a field of type t takes, in the words of the API, not of Go.
func expected(t reflect.Type, err error) string {
	switch t {
	case quantityType:
		return "must be a quantity, such as 500m, 2, 1.5 or 4Gi"
	case intOrString:
		return "must be an integer or a string, such as 1 or 25%"
	case timeType:
		return "must be a time in RFC 3339 form, such as 2026-01-02T15:04:05Z"
	case durationType:
		return "must be a duration, such as 30s or 1h30m"
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		// The types' own messages (a duration's, say) name no Go type; a decoder's may.
		if msg := strings.TrimPrefix(err.Error(), "json: "); !strings.Contains(msg, "Go ") {
			return msg
		}
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "must be an integer"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.Bool:
		return "must be a boolean (true or false)"
	case reflect.String:
		return "must be a string"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "must be a base64 string"
		}
		return "must be a list"
	}
	return "must be an object"
}

// invalid renders a value as the API server would: scalars as themselves, lists and objects as JSON.
func invalid(path *field.Path, doc any, detail string) *field.Error {
	var value any = doc
	switch v := doc.(type) {
	case json.Number:
		value = v.String()
	case map[string]any, []any:
		raw, _ := json.Marshal(v)
		value = string(raw)
	}
	return field.Invalid(path, value, detail)
}

// fieldType finds the Go type of the JSON key in struct t, through inlined and embedded structs.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,")) && ft.Kind() == reflect.Struct {
			if found, ok := fieldType(ft, key); ok {
				return found, true
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}
