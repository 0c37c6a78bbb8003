package transport

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
)

// What a client tells of its calls: one log record per attempt, a warning per answer field kept
// raw, and what came with a call (RawResponse). Whatever is logged goes through one redaction
// rule first (redactedHeaders, redactedInput): no credential header and no input field the schema
// marks secret ever reaches a log.

// redacted replaces the value of a credential or a secret field.
const redacted = "[redacted]"

// secretHeader reports whether a header (gRPC: metadata key) carries a credential: the admin
// secret, the API key, authorization, cookies (secretHeaders, lower-case).
func secretHeader(name string) bool { return slices.Contains(secretHeaders, strings.ToLower(name)) }

// RedactedHeader is a copy of h with the value of every credential header replaced by
// "[redacted]" (the public RedactedHeader).
func RedactedHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for name, values := range h {
		if secretHeader(name) {
			values = []string{redacted}
		}
		out[name] = append([]string(nil), values...)
	}
	return out
}

// redactedHeaders is a copy of the headers of a call with every credential redacted.
func redactedHeaders(headers map[string]string) map[string]string {
	out := make(map[string]string, len(headers))
	for name, value := range headers {
		if secretHeader(name) {
			value = redacted
		}
		out[name] = value
	}
	return out
}

// redactedInput is a copy of body (the flat input of message) with the value of every field the
// schema marks secret redacted, at any depth.
func redactedInput(message string, body map[string]any) map[string]any {
	out := make(map[string]any, len(body))
	for key, value := range body {
		out[key] = value
	}
	for _, f := range messageFacts[message] {
		value, ok := out[f.name]
		if !ok || value == nil {
			continue
		}
		switch {
		case f.secret:
			out[f.name] = redacted
		case f.kind == kindMessage && f.list:
			items, _ := value.([]any)
			out[f.name] = eachObject(items, func(object map[string]any) map[string]any { return redactedInput(f.ref, object) })
		case f.kind == kindMessage:
			if object, ok := value.(map[string]any); ok {
				out[f.name] = redactedInput(f.ref, object)
			}
		}
	}
	return out
}

// loggerOfEnvironment is the logger the environment's <API>_LOG asks for: debug (every attempt)
// or info (failures and warnings) to standard error; nil for off, unset or anything else.
func loggerOfEnvironment() *slog.Logger {
	var level slog.Level
	switch strings.ToLower(strings.TrimSpace(FromEnvironment("LOG"))) {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	default:
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// exchange is what one attempt saw of its answer.
type exchange struct {
	// status is the HTTP status (0 without an HTTP answer); grpcCode the gRPC status of a gRPC
	// call that was made (grpc).
	status   int
	grpcCode codes.Code
	grpc     bool
	// header is the answer's HTTP headers; nil without an answer. metadata is the header and
	// trailer metadata of a gRPC answer, made headers when asked for (headers).
	header   http.Header
	metadata [2]metadata.MD
	// kept are the answer's fields whose JSON type was not the expected one, kept raw.
	kept []keptField
}

// headers is the answer's headers, over gRPC its header and trailer metadata; nil without any.
func (seen *exchange) headers() http.Header {
	if seen.header == nil && (len(seen.metadata[0]) > 0 || len(seen.metadata[1]) > 0) {
		seen.header = metadataHeader(seen.metadata[0], seen.metadata[1])
	}
	return seen.header
}

// keptField is a field of an answer kept raw in ExtraFields: its path, the type it should have
// had, and the JSON type it had.
type keptField struct{ path, want, got string }

// grpcCodeNames are the canonical names of the gRPC status codes.
var grpcCodeNames = [...]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
	"RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

// statusAttr is the status of an attempt as its log record says it: the HTTP status, or the name
// of the gRPC code.
func (seen *exchange) statusAttr() slog.Attr {
	if !seen.grpc {
		return slog.Int("status", seen.status)
	}
	if int(seen.grpcCode) < len(grpcCodeNames) {
		return slog.String("status", grpcCodeNames[seen.grpcCode])
	}
	return slog.String("status", "CODE_"+strconv.Itoa(int(seen.grpcCode)))
}

// outcome is the status of an attempt in words: "HTTP 200", "OK", "UNAVAILABLE".
func (seen *exchange) outcome() string {
	if attr := seen.statusAttr(); attr.Value.Kind() == slog.KindString {
		return attr.Value.String()
	}
	if seen.status == 0 {
		return "no answer"
	}
	return "HTTP " + strconv.Itoa(seen.status)
}

// logAttempt writes the record of one attempt: at debug level when it succeeded, at warn level
// when it failed; its headers and input redacted. Then a warning per answer field kept raw.
func (c *Core) logAttempt(ctx context.Context, op *Operation, protocol Protocol, attempt int, seen *exchange, took time.Duration, body map[string]any, headers map[string]string, failure *APIError, willRetry bool) {
	if c.logger == nil {
		return
	}
	level := slog.LevelDebug
	if failure != nil {
		level = slog.LevelWarn
	}
	if c.logger.Enabled(ctx, level) {
		outcome := seen.outcome()
		if failure != nil {
			outcome = string(failure.Code) + " (" + outcome + ")"
		}
		message := fmt.Sprintf("%s: %s over %s, attempt %d: %s in %s", packageName, op.name, protocol, attempt, outcome, took.Round(time.Microsecond))
		if willRetry {
			message += ", retrying"
		}
		attrs := []slog.Attr{
			slog.String("operation", op.name),
			slog.String("protocol", string(protocol)),
			slog.Int("attempt", attempt),
			seen.statusAttr(),
			slog.Duration("duration", took),
			slog.Bool("will_retry", willRetry),
		}
		if failure != nil {
			attrs = append(attrs, slog.String("code", string(failure.Code)), slog.String("error", failure.Message))
		}
		attrs = append(attrs, slog.Any("headers", redactedHeaders(headers)), slog.Any("input", redactedInput(op.input, body)))
		if headers := seen.headers(); headers != nil {
			attrs = append(attrs, slog.Any("response_headers", RedactedHeader(headers)))
		}
		c.logger.LogAttrs(ctx, level, message, attrs...)
	}
	for _, kept := range seen.kept {
		c.logger.LogAttrs(ctx, slog.LevelWarn, fmt.Sprintf("%s: %s over %s: answer field %s is not %s but %s; kept raw in ExtraFields", packageName, op.name, protocol, kept.path, kept.want, kept.got),
			slog.String("operation", op.name),
			slog.String("protocol", string(protocol)),
			slog.String("field", kept.path),
			slog.String("want", kept.want),
			slog.String("got", kept.got),
		)
	}
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
