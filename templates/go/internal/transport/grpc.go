package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/textproto"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

type dialOption = grpc.DialOption

// The proto messages are dynamic messages of the descriptor set the package embeds
// (descriptors.go): nothing is compiled, and nothing is registered in the global registry, so an
// application may hold other versions of the same proto files.
var (
	filesOnce  sync.Once
	files      *protoregistry.Files
	filesError error
)

// FileDescriptorSet is the serialized google.protobuf.FileDescriptorSet of the service's proto
// files (without source info), for tools and raw gRPC clients.
func FileDescriptorSet() []byte {
	data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(fileDescriptorSet), ""))
	if err != nil {
		panic(fmt.Sprintf("%s: the embedded descriptor set is damaged: %v", packageName, err))
	}
	return data
}

func protoFiles() (*protoregistry.Files, error) {
	filesOnce.Do(func() {
		set := &descriptorpb.FileDescriptorSet{}
		if filesError = proto.Unmarshal(FileDescriptorSet(), set); filesError == nil {
			files, filesError = protodesc.NewFiles(set)
		}
	})
	return files, filesError
}

func messageDescriptor(name string) (protoreflect.MessageDescriptor, error) {
	registry, err := protoFiles()
	if err != nil {
		return nil, err
	}
	found, err := registry.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, err
	}
	descriptor, ok := found.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a message", name)
	}
	return descriptor, nil
}

// protoPlan is the field descriptors of one message, in the order of its facts.
type protoPlan struct {
	fields []protoreflect.FieldDescriptor
}

type protoPlanKey struct {
	message string
	proto   protoreflect.FullName
}

// protoPlans: per message of the facts and proto message (an operation's response message may be
// its own copy of a shared type), the field descriptors.
var protoPlans sync.Map // protoPlanKey -> *protoPlan

func protoPlanOf(message string, descriptor protoreflect.MessageDescriptor) *protoPlan {
	key := protoPlanKey{message, descriptor.FullName()}
	if found, ok := protoPlans.Load(key); ok {
		return found.(*protoPlan)
	}
	facts := messageFacts[message]
	p := &protoPlan{fields: make([]protoreflect.FieldDescriptor, len(facts))}
	for i, f := range facts {
		p.fields[i] = descriptor.Fields().ByName(protoreflect.Name(f.name))
		if p.fields[i] == nil {
			panic(fmt.Sprintf("%s: proto message %s has no field %s (generator defect)", packageName, descriptor.FullName(), f.name))
		}
	}
	found, _ := protoPlans.LoadOrStore(key, p)
	return found.(*protoPlan)
}

// grpcTransport makes unary calls over one connection.
type grpcTransport struct {
	conn *grpc.ClientConn
	// defaultEndpoint is the endpoint when the client chose it itself, and option the one that
	// changes it: a refused connection then names both.
	defaultEndpoint, option string
}

// newGRPCTransport dials endpoint over TLS with tlsConfig, or in plaintext when it is nil; options
// come after, so that credentials among them replace these.
func newGRPCTransport(endpoint string, tlsConfig *tls.Config, options []grpc.DialOption) (*grpcTransport, error) {
	security := insecure.NewCredentials()
	if tlsConfig != nil {
		security = credentials.NewTLS(tlsConfig)
	}
	all := append([]grpc.DialOption{grpc.WithTransportCredentials(security)}, options...)
	conn, err := grpc.NewClient(endpoint, all...)
	if err != nil {
		return nil, fmt.Errorf("gRPC endpoint %q: %w", endpoint, err)
	}
	return &grpcTransport{conn: conn}, nil
}

func (t *grpcTransport) close() error { return t.conn.Close() }

// grpcMethod is the request and response message types of an operation's RPC.
type grpcMethod struct {
	request, response protoreflect.MessageType
}

var grpcMethods sync.Map // *Operation -> *grpcMethod

func methodOf(op *Operation) (*grpcMethod, error) {
	if found, ok := grpcMethods.Load(op); ok {
		return found.(*grpcMethod), nil
	}
	request, err := messageDescriptor(op.grpc.request)
	if err != nil {
		return nil, err
	}
	response, err := messageDescriptor(op.grpc.response)
	if err != nil {
		return nil, err
	}
	found, _ := grpcMethods.LoadOrStore(op, &grpcMethod{dynamicpb.NewMessageType(request), dynamicpb.NewMessageType(response)})
	return found.(*grpcMethod), nil
}

func (t *grpcTransport) call(ctx context.Context, op *Operation, protocol Protocol, body map[string]any, headers map[string]string, out any, seen *exchange) error {
	method, err := methodOf(op)
	if err != nil {
		return &APIError{Code: codeInternal, Message: err.Error(), Operation: op.name, Protocol: protocol, cause: err}
	}
	request := method.request.New().Interface().(*dynamicpb.Message)
	// Protobuf would coerce or drop a bad value without a word; refuse it as the server does.
	if err := fillMessage(op.input, request, body, ""); err != nil {
		return &APIError{Code: codeInvalidArgument, Message: err.Error(), Operation: op.name, Protocol: protocol, Refused: true}
	}
	response := method.response.New().Interface().(*dynamicpb.Message)
	md := make(metadata.MD, len(headers))
	for key, value := range headers {
		// The user agent is the connection's (grpc.WithUserAgent): gRPC takes none from metadata.
		if key != "user-agent" {
			md[key] = []string{value}
		}
	}
	var header, trailer metadata.MD
	seen.grpc = true
	err = t.conn.Invoke(metadata.NewOutgoingContext(ctx, md), op.grpc.path, request, response, grpc.Header(&header), grpc.Trailer(&trailer))
	seen.grpcCode, seen.metadata = status.Code(err), [2]metadata.MD{header, trailer}
	if err != nil {
		failure := grpcFailure(ctx, op, err, header, trailer)
		if t.defaultEndpoint != "" && failure.Code == faultNoAnswer && strings.Contains(strings.ToLower(failure.Message), "connection refused") {
			reason := fill(textDefaultGrpcEndpoint, "reason", status.Convert(err).Message(), "endpoint", t.defaultEndpoint, "port", strconv.Itoa(grpcPort), "option", t.option)
			failure.Message = fill(textNoAnswer, "operation", op.name, "reason", reason)
		}
		return failure
	}
	v, _ := structValue(out)
	fromProto(op.output, v, response)
	return nil
}

// metadataHeader is the header and trailer metadata of an answer as one http.Header, the
// trailer's after the header's.
func metadataHeader(mds ...metadata.MD) http.Header {
	out := http.Header{}
	for _, md := range mds {
		for key, values := range md {
			name := textproto.CanonicalMIMEHeaderKey(key)
			out[name] = append(out[name], values...)
		}
	}
	return out
}

func firstValue(key string, mds ...metadata.MD) string {
	for _, md := range mds {
		if values := md.Get(key); len(values) > 0 {
			return values[0]
		}
	}
	return ""
}

// grpcFailure is the *APIError of a failed call: the code the server names in its metadata, else
// the one of its gRPC status. A status the server does not name comes from the gRPC library or a
// proxy: UNAVAILABLE, or a CANCELLED the caller did not ask for, is no answer; INTERNAL or UNKNOWN
// a stream without a readable answer (a write's may have happened).
func grpcFailure(ctx context.Context, op *Operation, err error, header, trailer metadata.MD) *APIError {
	if ended := contextEnded(ctx); ended != nil {
		return contextFailure(ended, op, ProtocolGRPC, err)
	}
	st := status.Convert(err)
	number := uint32(st.Code())
	// The wait an overloaded server asks for, on whatever status it answers.
	wait := waitAsked(firstValue(retryAfterMsKey, trailer, header), firstValue(retryAfterKey, trailer, header), time.Now())
	named := firstValue(grpcCodeMetadata, trailer, header)
	if isServerCode(named) {
		return &APIError{Code: ErrorCode(named), Message: st.Message(), Operation: op.name, Protocol: ProtocolGRPC, RetryAfter: wait, cause: err}
	}
	if slices.Contains(grpcNoAnswerStatuses, number) {
		failure := noAnswer(op, ProtocolGRPC, errors.New(st.Message()))
		failure.RetryAfter, failure.cause, failure.refusedConnection = wait, err, grpcConnectionRefused(st)
		return failure
	}
	if slices.Contains(grpcUnreadableStatuses, number) {
		return unreadable(op, ProtocolGRPC, 0, err, textUnreadableMessage, "reason", st.Message())
	}
	code := codeOfGRPCStatus(number)
	if bare, ok := grpcBareStatuses[number]; ok && named == "" {
		code = bare
	}
	return &APIError{Code: code, Message: st.Message(), Operation: op.name, Protocol: ProtocolGRPC, RetryAfter: wait, cause: err}
}

// ---------------------------------------------------------------- flat shape -> protobuf

func fillMessage(message string, target *dynamicpb.Message, body map[string]any, prefix string) error {
	p := protoPlanOf(message, target.Descriptor())
	for i, f := range messageFacts[message] {
		raw, ok := body[f.name]
		if !ok || raw == nil {
			continue
		}
		fd := p.fields[i]
		path := childPath(prefix, f.name)
		switch {
		case f.list:
			list := target.Mutable(fd).List()
			for index, item := range raw.([]any) {
				value, err := protoValue(&f, fd, list.NewElement(), item, fmt.Sprintf("%s[%d]", path, index))
				if err != nil {
					return err
				}
				list.Append(value)
			}
		case f.kind == kindMap:
			entries := target.Mutable(fd).Map()
			for key, value := range raw.(map[string]string) {
				entries.Set(protoreflect.ValueOfString(key).MapKey(), protoreflect.ValueOfString(value))
			}
		case f.kind == kindMessage || f.kind == kindJSON || f.kind == kindTimestamp || f.kind == kindDuration:
			if _, err := protoValue(&f, fd, target.Mutable(fd), raw, path); err != nil {
				return err
			}
		default:
			value, err := protoValue(&f, fd, protoreflect.Value{}, raw, path)
			if err != nil {
				return err
			}
			target.Set(fd, value)
		}
	}
	return nil
}

// maxSafeInteger is the largest integer every client (and the server) reads exactly.
const maxSafeInteger = 1<<53 - 1

// protoValue is one value of field f; messages are filled into empty, a new mutable message.
func protoValue(f *field, fd protoreflect.FieldDescriptor, empty protoreflect.Value, raw any, path string) (protoreflect.Value, error) {
	switch f.kind {
	case kindString:
		return protoreflect.ValueOfString(raw.(string)), nil
	case kindBool:
		return protoreflect.ValueOfBool(raw.(bool)), nil
	case kindInt32:
		return protoreflect.ValueOfInt32(int32(raw.(int64))), nil
	case kindInt64:
		number := raw.(int64)
		if number > maxSafeInteger || number < -maxSafeInteger {
			return protoreflect.Value{}, &wireError{path, wireTextInteger}
		}
		return protoreflect.ValueOfInt64(number), nil
	case kindFloat64:
		return protoreflect.ValueOfFloat64(raw.(float64)), nil
	// The values below come in their JSON forms (toWire), checked there.
	case kindUint32:
		return protoreflect.ValueOfUint32(uint32(raw.(int64))), nil
	case kindUint64:
		number, err := strconv.ParseUint(raw.(string), 10, 64)
		if err != nil {
			return protoreflect.Value{}, &wireError{path, wireTextUint64}
		}
		return protoreflect.ValueOfUint64(number), nil
	case kindFloat32:
		return protoreflect.ValueOfFloat32(float32(raw.(float64))), nil
	case kindDate:
		return protoreflect.ValueOfString(raw.(string)), nil
	case kindBytes:
		data, ok := parseBytes(raw.(string))
		if !ok {
			return protoreflect.Value{}, &wireError{path, wireTextBytes}
		}
		return protoreflect.ValueOfBytes(data), nil
	case kindTimestamp, kindDuration:
		parse, text := parseTimestamp, wireTextTimestamp
		if f.kind == kindDuration {
			parse, text = parseDuration, wireTextDuration
		}
		seconds, nanos, ok := parse(raw.(string))
		if !ok {
			return protoreflect.Value{}, &wireError{path, text}
		}
		setSecondsAndNanos(empty.Message(), seconds, nanos)
		return empty, nil
	case kindEnum:
		number, ok := enumNumber(f.ref, raw.(string))
		if !ok {
			return protoreflect.Value{}, &wireError{path, fill(wireTextEnum, "values", strings.Join(enumNames(f.ref), wireTextEnumSeparator))}
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(number)), nil
	case kindJSON:
		fillStruct(empty.Message(), raw.(map[string]any))
		return empty, nil
	case kindMessage:
		return empty, fillMessage(f.ref, empty.Message().Interface().(*dynamicpb.Message), raw.(map[string]any), path)
	}
	return protoreflect.Value{}, &wireError{path, wireTextObject}
}

// ---------------------------------------------------------------- protobuf -> flat shape

// fromProto reads a proto message into v, the answer struct of message: unset optional fields stay
// nil, lists and maps are never nil, enums read as their wire names (0: unset; a number this SDK
// does not know: UNKNOWN_<number>).
func fromProto(message string, v reflect.Value, source protoreflect.Message) {
	p := planOf(message, v.Type())
	fields := protoPlanOf(message, source.Descriptor()).fields
	for i, f := range p.fields {
		fd := fields[i]
		target := v.Field(f.index)
		switch {
		case f.list:
			list := source.Get(fd).List()
			items := reflect.MakeSlice(target.Type(), list.Len(), list.Len())
			for j := 0; j < list.Len(); j++ {
				setFromProto(f.field, items.Index(j), list.Get(j))
			}
			target.Set(items)
		case f.kind == kindMap:
			entries := source.Get(fd).Map()
			out := make(map[string]string, entries.Len())
			entries.Range(func(key protoreflect.MapKey, value protoreflect.Value) bool {
				out[key.String()] = value.String()
				return true
			})
			target.Set(reflect.ValueOf(out))
		case (f.presence || f.kind == kindMessage || f.kind == kindJSON || f.kind == kindTimestamp || f.kind == kindDuration) && !source.Has(fd):
			// Unset: stays nil (a Timestamp or Duration is a message: unset is not the epoch, nor 0s).
		default:
			setFromProto(f.field, target, source.Get(fd))
		}
	}
}

// setFromProto sets target (a field or a list item; a pointer is allocated) from one proto value.
func setFromProto(f *field, target reflect.Value, value protoreflect.Value) {
	switch f.kind {
	case kindMessage:
		item := reflect.New(target.Type().Elem())
		fromProto(f.ref, item.Elem(), value.Message())
		target.Set(item)
		return
	case kindJSON:
		target.Set(reflect.ValueOf(structToMap(value.Message())))
		return
	}
	if target.Kind() == reflect.Pointer {
		if f.kind == kindEnum && value.Enum() == 0 {
			return // unset
		}
		item := reflect.New(target.Type().Elem())
		target.Set(item)
		target = item.Elem()
	}
	switch f.kind {
	case kindString, kindDate:
		target.SetString(value.String())
	case kindBool:
		target.SetBool(value.Bool())
	case kindInt32, kindInt64:
		target.SetInt(value.Int())
	case kindUint32, kindUint64:
		target.SetUint(value.Uint())
	case kindFloat32, kindFloat64:
		target.SetFloat(value.Float())
	case kindBytes:
		target.SetBytes(bytes.Clone(value.Bytes()))
	case kindTimestamp:
		seconds, nanos := secondsAndNanos(value.Message())
		target.Set(reflect.ValueOf(time.Unix(seconds, nanos).UTC()))
	case kindDuration:
		seconds, nanos := secondsAndNanos(value.Message())
		target.SetInt(int64(saturatedDuration(seconds, nanos)))
	case kindEnum:
		target.SetString(enumWireName(f.ref, int32(value.Enum())))
	}
}

// ---------------------------------------------------------------- google.protobuf.Timestamp and Duration

// setSecondsAndNanos sets a google.protobuf.Timestamp or Duration.
func setSecondsAndNanos(target protoreflect.Message, seconds, nanos int64) {
	fields := target.Descriptor().Fields()
	target.Set(fields.ByName("seconds"), protoreflect.ValueOfInt64(seconds))
	target.Set(fields.ByName("nanos"), protoreflect.ValueOfInt32(int32(nanos)))
}

func secondsAndNanos(source protoreflect.Message) (int64, int64) {
	fields := source.Descriptor().Fields()
	return source.Get(fields.ByName("seconds")).Int(), source.Get(fields.ByName("nanos")).Int()
}

// saturatedDuration is a Duration as a time.Duration, which holds ±292 years: one longer reads as
// the longest time.Duration of its sign.
func saturatedDuration(seconds, nanos int64) time.Duration {
	switch {
	case seconds > math.MaxInt64/int64(time.Second)-1:
		return math.MaxInt64
	case seconds < math.MinInt64/int64(time.Second)+1:
		return math.MinInt64
	}
	return time.Duration(seconds)*time.Second + time.Duration(nanos)
}

// ---------------------------------------------------------------- google.protobuf.Struct <-> JSON

func fillStruct(target protoreflect.Message, value map[string]any) {
	fields := target.Mutable(target.Descriptor().Fields().ByName("fields")).Map()
	for key, item := range value {
		entry := fields.NewValue()
		fillValue(entry.Message(), item)
		fields.Set(protoreflect.ValueOfString(key).MapKey(), entry)
	}
}

// fillValue sets a google.protobuf.Value from a canonical JSON value (see canonicalJSON).
func fillValue(target protoreflect.Message, value any) {
	kinds := target.Descriptor().Fields()
	switch v := value.(type) {
	case nil:
		target.Set(kinds.ByName("null_value"), protoreflect.ValueOfEnum(0))
	case bool:
		target.Set(kinds.ByName("bool_value"), protoreflect.ValueOfBool(v))
	case float64:
		target.Set(kinds.ByName("number_value"), protoreflect.ValueOfFloat64(v))
	case string:
		target.Set(kinds.ByName("string_value"), protoreflect.ValueOfString(v))
	case map[string]any:
		fillStruct(target.Mutable(kinds.ByName("struct_value")).Message(), v)
	case []any:
		list := target.Mutable(kinds.ByName("list_value")).Message()
		values := list.Mutable(list.Descriptor().Fields().ByName("values")).List()
		for _, item := range v {
			entry := values.NewElement()
			fillValue(entry.Message(), item)
			values.Append(entry)
		}
	}
}

func structToMap(source protoreflect.Message) map[string]any {
	fields := source.Get(source.Descriptor().Fields().ByName("fields")).Map()
	out := make(map[string]any, fields.Len())
	fields.Range(func(key protoreflect.MapKey, value protoreflect.Value) bool {
		out[key.String()] = valueToAny(value.Message())
		return true
	})
	return out
}

func valueToAny(source protoreflect.Message) any {
	kind := source.WhichOneof(source.Descriptor().Oneofs().ByName("kind"))
	if kind == nil {
		return nil
	}
	value := source.Get(kind)
	switch kind.Name() {
	case "number_value":
		return value.Float()
	case "string_value":
		return value.String()
	case "bool_value":
		return value.Bool()
	case "struct_value":
		return structToMap(value.Message())
	case "list_value":
		list := value.Message()
		values := list.Get(list.Descriptor().Fields().ByName("values")).List()
		items := make([]any, values.Len())
		for i := range items {
			items[i] = valueToAny(values.Get(i).Message())
		}
		return items
	}
	return nil
}
