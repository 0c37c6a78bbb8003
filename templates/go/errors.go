package identity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrorCode names what went wrong: one of the server's codes, or one a client tells on its own
// (no answer, too late, cancelled). The Code* constants list them all.
type ErrorCode string

// APIError is the one error of every call, whichever protocol carried it: refused by the client
// before anything was sent, or answered with an error. Branch on Code, or match one code with
// errors.Is(err, identity.ErrNotFound):
//
//	var apiErr *identity.APIError
//	if errors.As(err, &apiErr) && apiErr.Code == identity.CodeNotFound { ... }
type APIError struct {
	// Code is what went wrong.
	Code ErrorCode
	// Message is the server's message, or the client's own when it refused or heard no answer.
	Message string
	// Operation is the snake_case name of the operation (admin_meta).
	Operation string
	// Protocol is the protocol of the call.
	Protocol Protocol
	// HTTPStatus is the HTTP status of the answer over GraphQL and REST (0 when there was none).
	HTTPStatus int
	// Refused is true when the client refused the call before sending anything.
	Refused bool
	// OAuthError is the RFC 6749 error of the token routes (invalid_grant, ...).
	OAuthError string
	// RetryAfter is how long the server asked to wait before another try (Retry-After).
	RetryAfter time.Duration

	cause error
}

// Error is "identity: <operation> over <protocol>: <CODE>: <message>".
func (e *APIError) Error() string {
	return fmt.Sprintf("%s: %s over %s: %s: %s", packageName, e.Operation, e.Protocol, e.Code, e.Message)
}

// Unwrap is the failure underneath, if any: a network error, context.DeadlineExceeded, ...
func (e *APIError) Unwrap() error { return e.cause }

// Is reports whether target is the sentinel of e's code, so that errors.Is(err,
// identity.ErrNotFound) matches every NOT_FOUND.
func (e *APIError) Is(target error) bool {
	sentinel, ok := target.(*codeSentinel)
	return ok && sentinel.code == e.Code
}

// transient: worth another try for a read (no answer, or an overloaded server).
func (e *APIError) transient() bool {
	return slices.Contains(transientCodes, e.Code) || (e.HTTPStatus != 0 && slices.Contains(transientHTTPStatuses, e.HTTPStatus))
}

// codeSentinel is the value of the Err* variables: an error that every *APIError of its code
// matches with errors.Is.
type codeSentinel struct{ code ErrorCode }

func (s *codeSentinel) Error() string { return packageName + ": " + string(s.code) }

// isServerCode reports whether value is one of the server's codes.
func isServerCode(value string) bool {
	for _, wire := range serverCodes {
		if string(wire.code) == value {
			return true
		}
	}
	return false
}

// codeOfHTTPStatus is the code of an HTTP status, for answers that carry no body of the error model.
func codeOfHTTPStatus(status int) ErrorCode {
	for _, wire := range serverCodes {
		if wire.http == status {
			return wire.code
		}
	}
	if status >= 500 {
		return httpFallbackServerError
	}
	return httpFallbackOtherwise
}

// codeOfGRPCStatus is the code of a gRPC status: the first of the table with that status.
func codeOfGRPCStatus(status uint32) ErrorCode {
	for _, wire := range serverCodes {
		if wire.grpc == status {
			return wire.code
		}
	}
	return grpcFallback
}

// codeOfOAuthError is the code of an RFC 6749 error of the token routes.
func codeOfOAuthError(oauthError string, status int) ErrorCode {
	if code, ok := oauthCodes[oauthError]; ok {
		return code
	}
	return codeOfHTTPStatus(status)
}

// fill replaces each {key} of text with its value; pairs are key, value, key, value, ...
func fill(text string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		text = strings.ReplaceAll(text, "{"+pairs[i]+"}", pairs[i+1])
	}
	return text
}

// contextEnded is the error of a context that ended: ctx.Err(), or DeadlineExceeded once its
// deadline has passed even if its timer has not fired yet (a server that enforces the deadline
// may end the call first).
func contextEnded(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// contextFailure is the error of a call whose context ended: DEADLINE_EXCEEDED or CANCELLED.
func contextFailure(ctxErr error, op *operation, protocol Protocol, cause error) *APIError {
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		return &APIError{Code: faultTimedOut, Message: fill(textTimedOut, "operation", op.name), Operation: op.name, Protocol: protocol, cause: errors.Join(ctxErr, cause)}
	}
	return &APIError{Code: faultCancelled, Message: fill(textCancelled, "operation", op.name), Operation: op.name, Protocol: protocol, cause: errors.Join(ctxErr, cause)}
}

// noAnswer is the error of a call the service did not answer.
func noAnswer(op *operation, protocol Protocol, cause error) *APIError {
	return &APIError{Code: faultNoAnswer, Message: fill(textNoAnswer, "operation", op.name, "reason", cause.Error()), Operation: op.name, Protocol: protocol, cause: cause}
}

// unreadable is the error of an answer that could not be read: to a write faultUnreadableWrite
// (OUTCOME_UNKNOWN), saying it may have happened; never retried. text has {operation} and {outcome}.
func unreadable(op *operation, protocol Protocol, status int, cause error, text string, values ...string) *APIError {
	code, outcome := faultUnreadableRead, ""
	if !op.retried {
		code, outcome = faultUnreadableWrite, textWriteMayHaveHappened
	}
	message := fill(text, append([]string{"operation", op.name, "outcome", outcome}, values...)...)
	return &APIError{Code: code, Message: message, Operation: op.name, Protocol: protocol, HTTPStatus: status, cause: cause}
}

// retryAfter is the wait a Retry-After value asks: delta-seconds or an HTTP date (0 when absent,
// unreadable or past).
func retryAfter(value string, now time.Time) time.Duration {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	if seconds, err := strconv.ParseFloat(value, 64); err == nil {
		if seconds <= 0 || seconds > float64(math.MaxInt64/time.Second) {
			return 0
		}
		return time.Duration(seconds * float64(time.Second))
	}
	if when, err := http.ParseTime(value); err == nil && when.After(now) {
		return when.Sub(now)
	}
	return 0
}
