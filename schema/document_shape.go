package schema

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// docShape is the Go type whose JSON form a document must have.
var docShape = reflect.TypeFor[Document]()

// checkShape checks decoded JSON (from a decoder using UseNumber) against
// the JSON form of type t, so that an unknown field or a value of the
// wrong type is reported with its path. It runs once per parsed document,
// never on a hot path.
func checkShape(raw any, t reflect.Type, path string) error {
	if t.Kind() == reflect.Pointer {
		if raw == nil {
			return nil
		}
		t = t.Elem()
	}
	bad := func(want string) error { return docError("", path, "want "+want) }
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := raw.(map[string]any)
		if !ok {
			return bad("an object")
		}
		for key, v := range obj {
			f, ok := jsonField(t, key)
			if !ok {
				return docError("", joinPath(path, key), "unknown field")
			}
			if err := checkShape(v, f.Type, joinPath(path, key)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if raw == nil {
			return nil
		}
		arr, ok := raw.([]any)
		if !ok {
			return bad("an array")
		}
		for i, v := range arr {
			if err := checkShape(v, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := raw.(string); !ok {
			return bad("a string")
		}
	case reflect.Bool:
		if _, ok := raw.(bool); !ok {
			return bad("true or false")
		}
	case reflect.Int, reflect.Int64:
		n, ok := raw.(json.Number)
		if _, err := strconv.ParseInt(string(n), 10, 64); !ok || err != nil {
			return bad("an integer")
		}
	case reflect.Uint64:
		n, ok := raw.(json.Number)
		if _, err := strconv.ParseUint(string(n), 10, 64); !ok || err != nil {
			return bad("a non-negative integer")
		}
	}
	return nil
}

// jsonField returns the field of struct type t whose JSON name is key.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
