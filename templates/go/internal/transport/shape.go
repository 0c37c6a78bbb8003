package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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
	kindUint32
	kindUint64
	// An int64 of an API that writes them as proto3's JSON mapping does: a decimal string.
	kindInt64String
	kindFloat32
	kindFloat64
	kindTimestamp
	kindDate
	kindDuration
	kindBytes
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
	// ref is the enum or message name, for kindEnum and kindMessage, and the enum of a map's values.
	ref string
	// value is the kind of a map's values (kindString unless the manifest says map<V>).
	value    fieldKind
	list     bool
	required bool
	// presence: the proto field tracks presence (unset reads as nil).
	presence bool
	// secret: its value never reaches a log (redactedInput).
	secret bool
}

// mapValue is the field each value of a map field is, as the conversions of single values read it.
func (f *field) mapValue() *field {
	return &field{name: f.name, kind: f.value, ref: f.ref, required: true}
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
	// extra is the index of the ExtraFields of an answer struct, -1 for an input struct.
	extra int
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
	p := &plan{message: message, fields: make([]plannedField, len(facts)), byName: make(map[string]int, len(facts)), extra: -1}
	if extra, ok := typ.FieldByName(extraFieldsName); ok && extra.Type == extraFieldsType && len(extra.Index) == 1 {
		p.extra = extra.Index[0]
	}
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
			if f.value == kindString {
				out[f.name] = fv.Interface()
				continue
			}
			// map<V>: each value in its wire form, as a single field of V.
			item := f.mapValue()
			entries := make(map[string]any, fv.Len())
			for iter := fv.MapRange(); iter.Next(); {
				value, err := valueToWire(item, iter.Value(), path+"."+iter.Key().String())
				if err != nil {
					return nil, err
				}
				entries[iter.Key().String()] = value
			}
			out[f.name] = entries
		case f.kind == kindBytes && fv.Kind() == reflect.Slice:
			// Empty bytes are not given, as an empty list is not.
			if fv.Len() == 0 {
				continue
			}
			out[f.name] = bytesText(fv.Bytes())
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
	case kindUint32:
		return int64(v.Uint()), nil
	case kindUint64:
		// A decimal string, as proto3's JSON mapping writes a uint64: a JSON number holds 2^53 at most.
		return strconv.FormatUint(v.Uint(), 10), nil
	case kindInt64String:
		return strconv.FormatInt(v.Int(), 10), nil
	case kindFloat32:
		number := v.Float()
		if math.IsNaN(number) || math.IsInf(number, 0) {
			return nil, &wireError{path, wireTextFloat64}
		}
		// The shortest decimal of the float32 (4.3, not 4.300000190734863), as a float64.
		shortest, _ := strconv.ParseFloat(strconv.FormatFloat(number, 'g', -1, 32), 64)
		return shortest, nil
	case kindTimestamp:
		text, ok := timestampText(v.Interface().(time.Time))
		if !ok {
			return nil, &wireError{path, wireTextTimestamp}
		}
		return text, nil
	case kindDuration:
		return durationText(time.Duration(v.Int())), nil
	case kindDate:
		// The zero Date is not given, as "" for a string.
		date := v.Interface().(Date)
		if date.IsZero() {
			return "", nil
		}
		if !date.IsValid() {
			return nil, &wireError{path, wireTextDate}
		}
		return date.String(), nil
	case kindBytes:
		return bytesText(v.Bytes()), nil
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
			} else if f.value == kindMessage {
				for iter := fv.MapRange(); iter.Next(); {
					if item := iter.Value(); !item.IsNil() {
						normalize(f.ref, item.Elem())
					}
				}
			}
		case f.kind == kindMessage:
			if !fv.IsNil() {
				normalize(f.ref, fv.Elem())
			}
		}
	}
}

// The forward compatibility of answers: every answer struct has ExtraFields, where the fields of
// an answer this version of the SDK does not know are kept as received, and so are known fields
// whose JSON type is not the expected one (a warning is logged); it embeds Answer, which keeps the
// JSON the answer of a call was decoded from (RawJSON).
const extraFieldsName = "ExtraFields"

var extraFieldsType = reflect.TypeOf(map[string]json.RawMessage(nil))

// Answer is embedded in every answer struct: the JSON of the answer of a call, as received.
type Answer struct{ raw []byte }

func (a *Answer) setRaw(data []byte) { a.raw = data }
func (a *Answer) rawJSON() []byte    { return a.raw }

// rawHolder is an answer struct, through the Answer it embeds.
type rawHolder interface {
	setRaw([]byte)
	rawJSON() []byte
}

// RawJSON is the JSON the answer of a call (a pointer to its struct) was decoded from, as
// received; for a struct within an answer, over gRPC, or for one not decoded from JSON, its JSON
// encoding.
func RawJSON(answer any) string {
	if holder, ok := answer.(rawHolder); ok && holder.rawJSON() != nil {
		return string(holder.rawJSON())
	}
	data, err := json.Marshal(answer)
	if err != nil {
		return ""
	}
	return string(data)
}

// isObject reports whether raw, a JSON value, is an object.
func isObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// jsonType is the JSON type of a JSON value.
func jsonType(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// kindType is the JSON type a field of kind holds.
var kindType = map[fieldKind]string{
	kindString: "string", kindBool: "boolean", kindInt32: "integer", kindInt64: "integer", kindUint32: "integer", kindUint64: "string", kindInt64String: "string",
	kindFloat32: "number", kindFloat64: "number", kindTimestamp: "string", kindDate: "string", kindDuration: "string", kindBytes: "string",
	kindMap: "object of strings", kindJSON: "object", kindEnum: "string", kindMessage: "object",
}

// wantType is the JSON type of field f.
func wantType(f *field) string {
	if f.list {
		return "array of " + kindType[f.kind]
	}
	return kindType[f.kind]
}

// decodeAnswer reads an answer (a JSON object of the flat shape, or nothing) into out, a pointer
// to its answer struct, and keeps data for RawJSON. An answer is never refused for its fields: one
// the SDK does not know, and a known field whose JSON type is not the expected one, are kept raw
// in ExtraFields (at any depth); those of the second kind are answered, for a warning.
func decodeAnswer(message string, data []byte, out any) []keptField {
	v, _ := structValue(out)
	var kept []keptField
	if isObject(data) {
		// One pass of the decoder reads an answer of the SDK's fields only, as most are (a walk of
		// its keys tells); any other is read again, field by field, and so is one of a message with
		// values in JSON forms of their own (decodedByJSON).
		if !decodedByJSON(message) || json.Unmarshal(data, out) != nil || !knownKeysOnly(message, data) {
			v.SetZero()
			decodeObject(message, v, data, "", &kept)
		}
		if holder, ok := out.(rawHolder); ok {
			holder.setRaw(data)
		}
	}
	normalize(message, v)
	slices.SortStableFunc(kept, func(a, b keptField) int { return strings.Compare(a.path, b.path) })
	return kept
}

// fieldsByName: per message, its fields by wire name.
var fieldsByName = sync.OnceValue(func() map[string]map[string]*field {
	out := make(map[string]map[string]*field, len(messageFacts))
	for message, facts := range messageFacts {
		byName := make(map[string]*field, len(facts))
		for i := range facts {
			byName[facts[i].name] = &facts[i]
		}
		// A tagged union's tag is a key of its JSON too (its method names the variant).
		if tag, ok := unionTags[message]; ok {
			byName[tag] = &field{name: tag, kind: kindString}
		}
		out[message] = byName
	}
	return out
})

// knownKeysOnly reports whether data, a valid JSON object of message, has no key that message
// (or the message of a member, at any depth) does not declare. It walks the keys without decoding
// anything.
func knownKeysOnly(message string, data []byte) bool {
	w := keyWalker{data: data}
	w.space()
	return w.peek() == '{' && w.object(fieldsByName()[message])
}

// keyWalker walks valid JSON.
type keyWalker struct {
	data []byte
	i    int
}

func (w *keyWalker) peek() byte {
	if w.i < len(w.data) {
		return w.data[w.i]
	}
	return 0
}

func (w *keyWalker) space() {
	for w.i < len(w.data) && (w.data[w.i] == ' ' || w.data[w.i] == '\t' || w.data[w.i] == '\n' || w.data[w.i] == '\r') {
		w.i++
	}
}

// str passes the string at w.i; its content, and whether it has no escape.
func (w *keyWalker) str() ([]byte, bool) {
	w.i++ // "
	start, plain := w.i, true
	for w.i < len(w.data) && w.data[w.i] != '"' {
		if w.data[w.i] == '\\' {
			plain = false
			w.i++
		}
		w.i++
	}
	content := w.data[start:min(w.i, len(w.data))]
	w.i++ // "
	return content, plain
}

// object passes the object at w.i; false at a key fields (nil: any object) does not have.
func (w *keyWalker) object(fields map[string]*field) bool {
	w.i++ // {
	for {
		w.space()
		if w.peek() != '"' {
			w.i++ // } of an empty object
			return true
		}
		key, plain := w.str()
		var f *field
		if fields != nil {
			if f = fields[string(key)]; !plain || f == nil {
				return false
			}
		}
		w.space()
		w.i++ // :
		w.space()
		if !w.value(f) {
			return false
		}
		w.space()
		if w.peek() != ',' {
			w.i++ // }
			return true
		}
		w.i++
	}
}

// value passes the value at w.i, of field f (nil: of no message).
func (w *keyWalker) value(f *field) bool {
	var fields map[string]*field
	if f != nil && f.kind == kindMessage {
		fields = fieldsByName()[f.ref]
	}
	switch w.peek() {
	case '{':
		return w.object(fields)
	case '[':
		w.i++
		for {
			w.space()
			if w.i >= len(w.data) {
				return false
			}
			if w.peek() == ']' {
				w.i++
				return true
			}
			if !w.value(f) {
				return false
			}
			w.space()
			if w.peek() == ',' {
				w.i++
			}
		}
	case '"':
		w.str()
	default:
		for w.i < len(w.data) && !strings.ContainsRune(",}] \t\n\r", rune(w.data[w.i])) {
			w.i++
		}
	}
	return true
}

// decodeObject reads the JSON object data into v, a struct of message.
func decodeObject(message string, v reflect.Value, data []byte, prefix string, kept *[]keptField) {
	p := planOf(message, v.Type())
	var members map[string]json.RawMessage
	_ = json.Unmarshal(data, &members) // an object: every member fits a json.RawMessage
	var extra map[string]json.RawMessage
	tag := unionTags[message]
	for name, raw := range members {
		if tag != "" && name == tag {
			continue
		}
		i, known := p.byName[name]
		if known {
			f := p.fields[i]
			fv := v.Field(f.index)
			path := childPath(prefix, name)
			if decodeField(f.field, fv, raw, path, kept) {
				continue
			}
			fv.SetZero()
			*kept = append(*kept, keptField{path: path, want: wantType(f.field), got: jsonType(raw)})
		}
		if extra == nil {
			extra = make(map[string]json.RawMessage)
		}
		extra[name] = raw
	}
	if p.extra >= 0 && extra != nil {
		v.Field(p.extra).Set(reflect.ValueOf(extra))
	}
}

// withUnionTags is body (toWire's) with each tagged union's tag beside its variant, as a REST
// request carries it; body itself stays as given.
func withUnionTags(message string, body map[string]any) map[string]any {
	if !reachesUnionTags(message) {
		return body
	}
	out := make(map[string]any, len(body)+1)
	for key, value := range body {
		out[key] = value
	}
	tag, tagged := unionTags[message]
	for _, f := range messageFacts[message] {
		raw, ok := out[f.name]
		if !ok || raw == nil {
			continue
		}
		if tagged {
			out[tag] = f.name
			tagged = false
		}
		if f.kind != kindMessage && !(f.kind == kindMap && f.value == kindMessage) {
			continue
		}
		switch v := raw.(type) {
		case map[string]any:
			if f.kind == kindMap {
				entries := make(map[string]any, len(v))
				for key, item := range v {
					if object, ok := item.(map[string]any); ok {
						item = withUnionTags(f.ref, object)
					}
					entries[key] = item
				}
				out[f.name] = entries
			} else {
				out[f.name] = withUnionTags(f.ref, v)
			}
		case []any:
			out[f.name] = eachObject(v, func(object map[string]any) map[string]any { return withUnionTags(f.ref, object) })
		}
	}
	return out
}

// eachObject is a copy of items with each object among them passed through convert (the other
// items as they are).
func eachObject(items []any, convert func(map[string]any) map[string]any) []any {
	out := make([]any, len(items))
	for i, item := range items {
		if object, ok := item.(map[string]any); ok {
			item = convert(object)
		}
		out[i] = item
	}
	return out
}

// reachesUnionTags reports whether a value of message can hold a tagged union, itself or nested.
func reachesUnionTags(message string) bool {
	return unionTagReach.of(message)
}

var unionTagReach = newReach(func(message string) bool {
	_, tagged := unionTags[message]
	return tagged
})

// decodedByJSON reports whether encoding/json reads every field of message, and of the messages
// it holds, as the SDK reads it: none of a text kind (a duration "1.5s" or a uint64 string it
// cannot read; a date, timestamp or base64 it would read otherwise than decodeText).
func decodedByJSON(message string) bool {
	return !textKindReach.of(message)
}

var textKindReach = newReach(func(message string) bool {
	for _, f := range messageFacts[message] {
		if isTextKind(f.kind) || (f.kind == kindMap && isTextKind(f.value)) {
			return true
		}
	}
	return false
})

// reach answers, once per message, whether the message or one it holds at any depth (in a field,
// a list or a map's values) is one that found says it is.
type reach struct {
	found   func(message string) bool
	answers sync.Map // message -> bool
}

func newReach(found func(message string) bool) *reach { return &reach{found: found} }

func (r *reach) of(message string) bool {
	if answer, ok := r.answers.Load(message); ok {
		return answer.(bool)
	}
	answer := r.walk(message, map[string]bool{})
	r.answers.Store(message, answer)
	return answer
}

// walk: seen are the messages on the way here (a message that holds itself is settled by its
// other fields), so only a whole walk's answer is kept.
func (r *reach) walk(message string, seen map[string]bool) bool {
	if seen[message] {
		return false
	}
	seen[message] = true
	if r.found(message) {
		return true
	}
	for _, f := range messageFacts[message] {
		if (f.kind == kindMessage || (f.kind == kindMap && f.value == kindMessage)) && r.walk(f.ref, seen) {
			return true
		}
	}
	return false
}

// isTextKind reports whether a field of kind has a JSON form of its own (decodeText reads it).
func isTextKind(kind fieldKind) bool {
	switch kind {
	case kindTimestamp, kindDate, kindDuration, kindBytes, kindUint64, kindInt64String:
		return true
	}
	return false
}

// decodeText reads the JSON form of a value of a text kind into target (a pointer is allocated);
// false when it is not one.
func decodeText(kind fieldKind, target reflect.Value, raw json.RawMessage) bool {
	var text string
	if (kind == kindUint64 || kind == kindInt64String) && len(raw) > 0 && raw[0] != '"' {
		text = string(raw) // a number is read as well
	} else if json.Unmarshal(raw, &text) != nil {
		return false
	}
	var value reflect.Value
	switch kind {
	case kindTimestamp:
		seconds, nanos, ok := parseTimestamp(text)
		if !ok {
			return false
		}
		value = reflect.ValueOf(time.Unix(seconds, nanos).UTC())
	case kindDate:
		day, ok := parseDate(text)
		if !ok {
			return false
		}
		value = reflect.ValueOf(DateOf(day))
	case kindDuration:
		seconds, nanos, ok := parseDuration(text)
		if !ok || seconds > math.MaxInt64/int64(time.Second)-1 || seconds < math.MinInt64/int64(time.Second)+1 {
			return false // beyond time.Duration's ±292 years
		}
		value = reflect.ValueOf(time.Duration(seconds)*time.Second + time.Duration(nanos))
	case kindBytes:
		data, ok := parseBytes(text)
		if !ok {
			return false
		}
		value = reflect.ValueOf(data)
	case kindUint64:
		number, err := strconv.ParseUint(text, 10, 64)
		if err != nil || !uint64Text.MatchString(text) {
			return false
		}
		value = reflect.ValueOf(number)
	case kindInt64String:
		number, err := strconv.ParseInt(text, 10, 64)
		if err != nil || !int64Text.MatchString(text) {
			return false
		}
		value = reflect.ValueOf(number)
	}
	if target.Kind() == reflect.Pointer {
		item := reflect.New(target.Type().Elem())
		target.Set(item)
		target = item.Elem()
	}
	target.Set(value.Convert(target.Type()))
	return true
}

// decodeField reads one member of an object into fv, its field f; false when its JSON type is not
// the field's.
func decodeField(f *field, fv reflect.Value, raw json.RawMessage, path string, kept *[]keptField) bool {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		fv.SetZero()
		return true
	}
	switch {
	case isTextKind(f.kind) && f.list:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return false
		}
		list := reflect.MakeSlice(fv.Type(), len(items), len(items))
		for i, item := range items {
			if item = bytes.TrimSpace(item); string(item) != "null" && !decodeText(f.kind, list.Index(i), item) {
				return false
			}
		}
		fv.Set(list)
	case isTextKind(f.kind):
		return decodeText(f.kind, fv, raw)
	case f.kind == kindMessage && f.list:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return false
		}
		list := reflect.MakeSlice(fv.Type(), len(items), len(items))
		var inItems []keptField
		for i, item := range items {
			if string(bytes.TrimSpace(item)) == "null" {
				continue
			}
			if !isObject(item) {
				return false
			}
			elem := reflect.New(fv.Type().Elem().Elem())
			decodeObject(f.ref, elem.Elem(), item, fmt.Sprintf("%s[%d]", path, i), &inItems)
			list.Index(i).Set(elem)
		}
		fv.Set(list)
		*kept = append(*kept, inItems...)
	case f.kind == kindMessage:
		if !isObject(raw) {
			return false
		}
		elem := reflect.New(fv.Type().Elem())
		decodeObject(f.ref, elem.Elem(), raw, path, kept)
		fv.Set(elem)
	case f.kind == kindMap && f.value != kindString:
		// map<V>: each value read as a single field of V.
		var entries map[string]json.RawMessage
		if json.Unmarshal(raw, &entries) != nil {
			return false
		}
		out := reflect.MakeMapWithSize(fv.Type(), len(entries))
		item := f.mapValue()
		for key, entry := range entries {
			element := reflect.New(fv.Type().Elem()).Elem()
			if !decodeField(item, element, entry, path+"."+key, kept) {
				return false
			}
			out.SetMapIndex(reflect.ValueOf(key), element)
		}
		fv.Set(out)
	default:
		return json.Unmarshal(raw, fv.Addr().Interface()) == nil
	}
	return true
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

// enumWireName is the wire name of an enum's proto number as an answer reads it: "" for 0 (unset),
// UNKNOWN_<number> for a number this SDK does not know (a value added to the service since).
func enumWireName(enum string, number int32) string {
	if name, known := enumName(enum, number); known || number == 0 {
		return name
	}
	return fmt.Sprintf("UNKNOWN_%d", number)
}

// enumNames are the wire names of an enum, in declaration order.
func enumNames(enum string) []string {
	names := make([]string, len(enumFacts[enum]))
	for i, value := range enumFacts[enum] {
		names[i] = value.name
	}
	return names
}

// ---------------------------------------------------------------- values in their JSON forms

// The forms proto3's JSON mapping writes, as the server reads them: an RFC 3339 date-time, a
// date, a duration in seconds ("1.5s"), base64 (standard or URL-safe, padded or not) and a uint64
// or int64String as a decimal string. A Go value is written in one form: a timestamp in UTC with 0, 3, 6 or 9
// fractional digits, a duration with as many, bytes in standard padded base64.
var (
	timestampForm = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$`)
	dateForm      = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})$`)
	durationForm  = regexp.MustCompile(`^(-)?([0-9]{1,12})(?:\.([0-9]{1,9}))?s$`)
	base64Form    = regexp.MustCompile(`^[A-Za-z0-9+/_-]*={0,2}$`)
	uint64Text    = regexp.MustCompile(`^(?:0|[1-9][0-9]{0,19})$`)
	int64Text     = regexp.MustCompile(`^(?:0|-?[1-9][0-9]{0,18})$`)
)

// google.protobuf.Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z; Duration: ±10,000 years.
const (
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
	maxDurationSeconds  = 315576000000
)

// fraction is fractional seconds as proto3 JSON writes them: none, or 3, 6 or 9 digits.
func fraction(nanos int64) string {
	if nanos == 0 {
		return ""
	}
	digits := fmt.Sprintf("%09d", nanos)
	switch {
	case strings.HasSuffix(digits, "000000"):
		return "." + digits[:3]
	case strings.HasSuffix(digits, "000"):
		return "." + digits[:6]
	}
	return "." + digits
}

// timestampText is t as proto3 JSON writes a Timestamp; false outside the years 1 to 9999 (UTC).
func timestampText(t time.Time) (string, bool) {
	t = t.UTC()
	if seconds := t.Unix(); seconds < minTimestampSeconds || seconds > maxTimestampSeconds {
		return "", false
	}
	return t.Format("2006-01-02T15:04:05") + fraction(int64(t.Nanosecond())) + "Z", true
}

// durationText is d as proto3 JSON writes a Duration ("90s", "1.500s", "-0.250s").
func durationText(d time.Duration) string {
	sign := ""
	magnitude := uint64(d)
	if d < 0 {
		sign, magnitude = "-", uint64(-d) // -math.MinInt64 wraps to its own magnitude as a uint64
	}
	return sign + strconv.FormatUint(magnitude/uint64(time.Second), 10) + fraction(int64(magnitude%uint64(time.Second))) + "s"
}

func bytesText(data []byte) string { return base64.StdEncoding.EncodeToString(data) }

func digitsOf(text string) int64 {
	number, _ := strconv.ParseInt(text, 10, 64)
	return number
}

// nanosOf is the nanoseconds of up to 9 fractional digits.
func nanosOf(digits string) int64 {
	return digitsOf((digits + "000000000")[:9])
}

// validDate reports whether the year, month and day name a day of the proleptic Gregorian calendar.
func validDate(year, month, day int64) bool {
	return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= int64(time.Date(int(year), time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day())
}

// parseTimestamp is the seconds since the epoch and the nanoseconds of an RFC 3339 date-time.
func parseTimestamp(text string) (int64, int64, bool) {
	m := timestampForm.FindStringSubmatch(text)
	if m == nil {
		return 0, 0, false
	}
	year, month, day, hour, minute, second := digitsOf(m[1]), digitsOf(m[2]), digitsOf(m[3]), digitsOf(m[4]), digitsOf(m[5]), digitsOf(m[6])
	if !validDate(year, month, day) || hour > 23 || minute > 59 || second > 59 {
		return 0, 0, false
	}
	var offset int64
	if m[8] != "" {
		hours, minutes := digitsOf(m[9]), digitsOf(m[10])
		if hours > 23 || minutes > 59 {
			return 0, 0, false
		}
		offset = hours*3600 + minutes*60
		if m[8] == "-" {
			offset = -offset
		}
	}
	seconds := time.Date(int(year), time.Month(month), int(day), int(hour), int(minute), int(second), 0, time.UTC).Unix() - offset
	if seconds < minTimestampSeconds || seconds > maxTimestampSeconds {
		return 0, 0, false
	}
	return seconds, nanosOf(m[7]), true
}

// parseDate is the time of midnight UTC of a date such as 2026-01-31.
func parseDate(text string) (time.Time, bool) {
	m := dateForm.FindStringSubmatch(text)
	if m == nil || !validDate(digitsOf(m[1]), digitsOf(m[2]), digitsOf(m[3])) {
		return time.Time{}, false
	}
	return time.Date(int(digitsOf(m[1])), time.Month(digitsOf(m[2])), int(digitsOf(m[3])), 0, 0, 0, 0, time.UTC), true
}

// parseDuration is the seconds and nanoseconds (of one sign) of a duration such as "1.5s".
func parseDuration(text string) (int64, int64, bool) {
	m := durationForm.FindStringSubmatch(text)
	if m == nil {
		return 0, 0, false
	}
	seconds, nanos := digitsOf(m[2]), nanosOf(m[3])
	if seconds > maxDurationSeconds {
		return 0, 0, false
	}
	if m[1] == "-" {
		return -seconds, -nanos, true
	}
	return seconds, nanos, true
}

// parseBytes is the bytes of base64, standard or URL-safe, padded or not.
func parseBytes(text string) ([]byte, bool) {
	trimmed := strings.TrimRight(text, "=")
	if !base64Form.MatchString(text) || len(trimmed)%4 == 1 {
		return nil, false
	}
	standard := strings.NewReplacer("-", "+", "_", "/").Replace(trimmed)
	data, err := base64.RawStdEncoding.DecodeString(standard)
	if err != nil {
		return nil, false
	}
	return data, true
}
