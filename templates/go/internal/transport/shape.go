package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// The one flat shape: inputs are turned into it (a map of wire names) before they are sent over
// any protocol, and answers are read from it into the answer structs, whichever protocol carried
// them: every declared field present, unset optional fields nil, lists and maps never nil.

// fieldKind is the kind of a field of the manifest.
type fieldKind uint8

const (
	kindString fieldKind = iota
	kindBool
	kindInt32
	kindInt64
	kindFloat64
	kindMap
	kindJSON
	kindEnum
	kindMessage
)

// field is one field of a message, as the facts table describes it.
type field struct {
	// name is the wire name on every protocol (and the proto field name).
	name string
	kind fieldKind
	// ref is the enum or message name, for kindEnum and kindMessage.
	ref      string
	list     bool
	required bool
	// presence: the proto field tracks presence (unset reads as nil).
	presence bool
}

// plannedField is a field of the facts with the index of its Go struct field.
type plannedField struct {
	*field
	index int
}

// plan maps the fields of one message onto one Go struct type.
type plan struct {
	message string
	fields  []plannedField
	byName  map[string]int
}

type planKey struct {
	message string
	typ     reflect.Type
}

var plans sync.Map // planKey -> *plan

// planOf is the plan of message onto struct type typ, made once. The generated types and facts
// always agree; a mismatch is a defect of the generator, reported as such.
func planOf(message string, typ reflect.Type) *plan {
	key := planKey{message, typ}
	if found, ok := plans.Load(key); ok {
		return found.(*plan)
	}
	facts, ok := messageFacts[message]
	if !ok || typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("%s: no plan of message %s onto %s (generator defect)", packageName, message, typ))
	}
	indexes := make(map[string]int, typ.NumField())
	for i := 0; i < typ.NumField(); i++ {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		indexes[name] = i
	}
	p := &plan{message: message, fields: make([]plannedField, len(facts)), byName: make(map[string]int, len(facts))}
	for i := range facts {
		f := &facts[i]
		index, ok := indexes[f.name]
		if !ok {
			panic(fmt.Sprintf("%s: %s has no field %s (generator defect)", packageName, typ, f.name))
		}
		p.fields[i] = plannedField{field: f, index: index}
		p.byName[f.name] = i
	}
	found, _ := plans.LoadOrStore(key, p)
	return found.(*plan)
}

// structValue is the struct behind in (a pointer to it, or the struct), and whether there is one.
func structValue(in any) (reflect.Value, bool) {
	if in == nil {
		return reflect.Value{}, false
	}
	v := reflect.ValueOf(in)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	return v, v.Kind() == reflect.Struct
}

// wireError is an input value no protocol can carry faithfully; its message names the field.
type wireError struct{ path, text string }

func (e *wireError) Error() string { return e.path + ": " + e.text }

func childPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// toWire is in (a pointer to an input struct, or nil) in the flat shape: nil pointers, empty lists
// and empty maps are not given and left out; a required scalar is always sent.
func toWire(message string, in any) (map[string]any, error) {
	v, ok := structValue(in)
	if !ok {
		return map[string]any{}, nil
	}
	return messageToWire(message, v, "")
}

func messageToWire(message string, v reflect.Value, prefix string) (map[string]any, error) {
	p := planOf(message, v.Type())
	out := make(map[string]any, len(p.fields))
	for _, f := range p.fields {
		fv := v.Field(f.index)
		path := childPath(prefix, f.name)
		switch {
		case f.list:
			if fv.Len() == 0 {
				continue
			}
			items := make([]any, fv.Len())
			for i := range items {
				item, err := valueToWire(f.field, fv.Index(i), fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return nil, err
				}
				items[i] = item
			}
			out[f.name] = items
		case f.kind == kindMap:
			if fv.Len() == 0 {
				continue
			}
			out[f.name] = fv.Interface()
		case fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Map:
			if fv.IsNil() {
				continue
			}
			value, err := valueToWire(f.field, fv, path)
			if err != nil {
				return nil, err
			}
			out[f.name] = value
		default:
			value, err := valueToWire(f.field, fv, path)
			if err != nil {
				return nil, err
			}
			out[f.name] = value
		}
	}
	return out, nil
}

func valueToWire(f *field, v reflect.Value, path string) (any, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, &wireError{path, wireTextObject}
		}
		v = v.Elem()
	}
	switch f.kind {
	case kindString, kindEnum:
		return v.String(), nil
	case kindBool:
		return v.Bool(), nil
	case kindInt32, kindInt64:
		return v.Int(), nil
	case kindFloat64:
		number := v.Float()
		if math.IsNaN(number) || math.IsInf(number, 0) {
			return nil, &wireError{path, wireTextFloat64}
		}
		return number, nil
	case kindJSON:
		return canonicalJSON(v.Interface(), path)
	case kindMessage:
		return messageToWire(f.ref, v, path)
	}
	return v.Interface(), nil
}

// canonicalJSON is a free-form JSON object as encoding/json reads it back (map[string]any,
// []any, float64, string, bool, nil), or the wire error of a value JSON cannot carry.
func canonicalJSON(value any, path string) (map[string]any, error) {
	if value == nil {
		return nil, &wireError{path, wireTextJson}
	}
	data, err := json.Marshal(value)
	if err != nil {
		return nil, &wireError{path, wireTextJson}
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil || out == nil {
		return nil, &wireError{path, wireTextJson}
	}
	return out, nil
}

// normalize gives a struct decoded from JSON the flat shape: nil lists and maps become empty.
func normalize(message string, v reflect.Value) {
	p := planOf(message, v.Type())
	for _, f := range p.fields {
		fv := v.Field(f.index)
		switch {
		case f.list:
			if fv.IsNil() {
				fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
			} else if f.kind == kindMessage {
				for i := 0; i < fv.Len(); i++ {
					if item := fv.Index(i); !item.IsNil() {
						normalize(f.ref, item.Elem())
					}
				}
			}
		case f.kind == kindMap:
			if fv.IsNil() {
				fv.Set(reflect.MakeMap(fv.Type()))
			}
		case f.kind == kindMessage:
			if !fv.IsNil() {
				normalize(f.ref, fv.Elem())
			}
		}
	}
}

// decodeJSON reads an answer (JSON of the flat shape) into out, a pointer to its answer struct.
func decodeJSON(message string, data []byte, out any) error {
	v, _ := structValue(out)
	if len(data) > 0 && string(data) != "null" {
		if err := json.Unmarshal(data, out); err != nil {
			return err
		}
	}
	normalize(message, v)
	return nil
}

// isSyntaxError: the bytes are not JSON at all (as opposed to JSON that does not fit the answer
// type). encoding/json checks the whole input before it decodes any of it.
func isSyntaxError(err error) bool {
	var syntax *json.SyntaxError
	return errors.As(err, &syntax)
}

// answerField is the field of an answer struct with wire name name (invalid when absent).
func answerField(message string, out any, name string) reflect.Value {
	v, ok := structValue(out)
	if !ok {
		return reflect.Value{}
	}
	p := planOf(message, v.Type())
	i, ok := p.byName[name]
	if !ok {
		return reflect.Value{}
	}
	return v.Field(p.fields[i].index)
}

// answerString is a string field of an answer ("" when unset).
func answerString(message string, out any, name string) string {
	fv := answerField(message, out, name)
	if fv.IsValid() && fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return ""
		}
		fv = fv.Elem()
	}
	if !fv.IsValid() || fv.Kind() != reflect.String {
		return ""
	}
	return fv.String()
}

// answerInt is an integer field of an answer, and whether it is set.
func answerInt(message string, out any, name string) (int64, bool) {
	fv := answerField(message, out, name)
	if fv.IsValid() && fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return 0, false
		}
		fv = fv.Elem()
	}
	if !fv.IsValid() || (fv.Kind() != reflect.Int64 && fv.Kind() != reflect.Int32) {
		return 0, false
	}
	return fv.Int(), true
}

// enumNumber is the proto number of an enum's wire name.
func enumNumber(enum, name string) (int32, bool) {
	for _, value := range enumFacts[enum] {
		if value.name == name {
			return value.number, true
		}
	}
	return 0, false
}

// enumName is the wire name of an enum's proto number; false for 0 (unset) and unknown numbers.
func enumName(enum string, number int32) (string, bool) {
	for _, value := range enumFacts[enum] {
		if value.number == number {
			return value.name, true
		}
	}
	return "", false
}

// enumNames are the wire names of an enum, in declaration order.
func enumNames(enum string) []string {
	names := make([]string, len(enumFacts[enum]))
	for i, value := range enumFacts[enum] {
		names[i] = value.name
	}
	return names
}
