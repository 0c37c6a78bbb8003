package transport

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"syscall"
)

// Idempotency keys (the IETF httpapi draft "The Idempotency-Key HTTP Header Field"): the service
// applies a write sent with a key once, and answers the same key again with the first answer,
// marked as a replay (header Idempotent-Replayed: true, gRPC metadata idempotent-replayed).
const (
	// idempotencyKeyHeader is the header (gRPC: metadata) that carries the key, lower-cased as
	// the headers of a call are.
	idempotencyKeyHeader = "idempotency-key"
	// idempotencyKeyMax is the longest key the service takes.
	idempotencyKeyMax = 255
	// idempotencyKeyForm is the form of a key, as a refusal names it.
	idempotencyKeyForm = "1 to 255 printable ASCII characters without spaces"
	// retryAfterMsKey is the header (gRPC: metadata) of the wait an overloaded server asks for in
	// milliseconds, read before Retry-After.
	retryAfterMsKey = "retry-after-ms"
)

// validIdempotencyKey reports whether key is one the service takes: 1 to 255 characters, each
// printable ASCII other than the space (0x21-0x7E).
func validIdempotencyKey(key string) bool {
	if key == "" || len(key) > idempotencyKeyMax {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// newIdempotencyKey is a random UUID (version 4, RFC 9562) from crypto/rand.
func newIdempotencyKey() (string, error) {
	var uuid [16]byte
	if _, err := rand.Read(uuid[:]); err != nil {
		return "", err
	}
	uuid[6] = uuid[6]&0x0f | 0x40 // version 4
	uuid[8] = uuid[8]&0x3f | 0x80 // variant 10
	var text [36]byte
	hex.Encode(text[0:8], uuid[0:4])
	text[8] = '-'
	hex.Encode(text[9:13], uuid[4:6])
	text[13] = '-'
	hex.Encode(text[14:18], uuid[6:8])
	text[18] = '-'
	hex.Encode(text[19:23], uuid[8:10])
	text[23] = '-'
	hex.Encode(text[24:], uuid[10:])
	return string(text[:]), nil
}

// callOptionProblem is what is wrong with the options of one call of op, refused before anything
// is sent, or nil.
func callOptionProblem(op *Operation, protocol Protocol, settings CallConfig) *APIError {
	if settings.IdempotencyKey != nil && !validIdempotencyKey(*settings.IdempotencyKey) {
		return &APIError{Code: codeInvalidArgument, Message: fmt.Sprintf("%s: the idempotency key (WithIdempotencyKey) must be %s, not %q", op.name, idempotencyKeyForm, *settings.IdempotencyKey), Operation: op.name, Protocol: protocol, Refused: true}
	}
	if settings.MaxRetries != nil && *settings.MaxRetries < 0 {
		return &APIError{Code: codeInvalidArgument, Message: fmt.Sprintf("%s: WithMaxRetries must be 0 or more retries, not %d", op.name, *settings.MaxRetries), Operation: op.name, Protocol: protocol, Refused: true}
	}
	for _, set := range settings.JSONSet {
		message := ""
		switch {
		case set.Name == "":
			message = fmt.Sprintf("%s: WithJSONSet needs the name of a field", op.name)
		case protocol == ProtocolGRPC:
			// Protobuf carries the fields of the SDK's descriptors only: the field would be lost.
			message = fmt.Sprintf("%s: WithJSONSet(%q) cannot be sent over grpc, whose messages carry only the fields this SDK knows; use graphql or rest", op.name, set.Name)
		case protocol == ProtocolGraphQL && op.graphql != nil && !op.graphql.withParams:
			message = fmt.Sprintf("%s: WithJSONSet(%q) cannot be sent over graphql, whose document of %s takes no input; use rest", op.name, set.Name, op.name)
		}
		if message != "" {
			return &APIError{Code: codeInvalidArgument, Message: message, Operation: op.name, Protocol: protocol, Refused: true}
		}
	}
	return nil
}

// connectionRefused reports whether failure is a connection the service refused: nothing of the
// call was sent, so any call, a write included, may go again. Over HTTP the dial failed with
// ECONNREFUSED; over gRPC the library answered UNAVAILABLE saying so (grpcFailure marks it).
func connectionRefused(failure *APIError) bool {
	return failure.Code == faultNoAnswer && (failure.refusedConnection || errors.Is(failure.cause, syscall.ECONNREFUSED))
}
