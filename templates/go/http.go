package identity

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// httpTransport carries GraphQL (POST {serviceURL}/graphql with the operation's document) and
// REST (the operation's route, JSON bodies, query strings for GET) over one *http.Client.
type httpTransport struct {
	serviceURL string
	client     *http.Client
	// maxBytes is the largest answer read; a larger one is refused as soon as it is known.
	maxBytes int64
}

// answerTooLarge is the error of an answer over the size cap.
func answerTooLarge(op *operation, protocol Protocol, limit int64, status int) *APIError {
	message := fill(textAnswerTooLarge, "operation", op.name, "limit", strconv.FormatInt(limit, 10), "option", "WithMaxResponseBytes")
	return &APIError{Code: faultTooLarge, Message: message, Operation: op.name, Protocol: protocol, HTTPStatus: status}
}

const contentTypeJSON = "application/json"

type graphqlRequest struct {
	Query     string         `json:"query"`
	Variables *graphqlParams `json:"variables,omitempty"`
}

type graphqlParams struct {
	Params map[string]any `json:"params"`
}

// jsonBody is value as compact JSON, with <, > and & kept as they are.
func jsonBody(value any) ([]byte, error) {
	var buffer bytes.Buffer
	encoder := json.NewEncoder(&buffer)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buffer.Bytes(), []byte("\n")), nil
}

// queryValue writes a value as JavaScript's String() does, so that every client sends the same query string.
func queryValue(value any) string {
	switch v := value.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		parts := make([]string, len(v))
		for i, item := range v {
			parts[i] = queryValue(item)
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

func (t *httpTransport) request(ctx context.Context, op *operation, protocol Protocol, body map[string]any, headers map[string]string) (*http.Request, error) {
	method, target := http.MethodPost, ""
	var payload []byte
	var err error
	if protocol == ProtocolGraphQL {
		target = t.serviceURL + "/graphql"
		request := graphqlRequest{Query: op.graphql.document}
		if op.graphql.withParams {
			request.Variables = &graphqlParams{Params: body}
		}
		payload, err = jsonBody(request)
	} else {
		path := op.rest.path
		if len(op.rest.pathParams) > 0 {
			// Each {field} segment takes the input's value, percent-encoded; the field leaves the body.
			rest := make(map[string]any, len(body))
			for key, value := range body {
				rest[key] = value
			}
			for _, param := range op.rest.pathParams {
				path = strings.Replace(path, "{"+param+"}", url.PathEscape(queryValue(body[param])), 1)
				delete(rest, param)
			}
			body = rest
		}
		method, target = op.rest.method, t.serviceURL+path
		if op.rest.inQuery {
			query := url.Values{}
			for key, value := range body {
				query.Set(key, queryValue(value))
			}
			if encoded := query.Encode(); encoded != "" {
				target += "?" + encoded
			}
		} else {
			payload, err = jsonBody(body)
		}
	}
	if err != nil {
		return nil, &APIError{Code: CodeInvalidArgument, Message: err.Error(), Operation: op.name, Protocol: protocol, Refused: true}
	}
	var reader io.Reader
	if payload != nil {
		reader = bytes.NewReader(payload)
	}
	request, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, noAnswer(op, protocol, err)
	}
	for key, value := range headers {
		request.Header.Set(key, value)
	}
	if payload != nil {
		request.Header.Set("Content-Type", contentTypeJSON)
	}
	return request, nil
}

func (t *httpTransport) call(ctx context.Context, op *operation, protocol Protocol, body map[string]any, headers map[string]string, out any) error {
	request, err := t.request(ctx, op, protocol, body, headers)
	if err != nil {
		return err
	}
	response, err := t.client.Do(request)
	if err != nil {
		return asAPIError(ctx, err, op, protocol)
	}
	if response.ContentLength > t.maxBytes {
		response.Body.Close()
		return answerTooLarge(op, protocol, t.maxBytes, response.StatusCode)
	}
	content, err := io.ReadAll(io.LimitReader(response.Body, t.maxBytes+1))
	response.Body.Close()
	if err != nil {
		return asAPIError(ctx, err, op, protocol)
	}
	if int64(len(content)) > t.maxBytes {
		return answerTooLarge(op, protocol, t.maxBytes, response.StatusCode)
	}
	var wait time.Duration
	if response.StatusCode >= 400 {
		wait = retryAfter(response.Header.Get("Retry-After"), time.Now())
	}
	if protocol == ProtocolGraphQL {
		return readGraphQL(op, response.StatusCode, content, wait, out)
	}
	return readREST(op, response.StatusCode, content, wait, out)
}

// answerMismatch is the error of JSON that does not fit the answer type: an answer that could not be read.
func answerMismatch(op *operation, protocol Protocol, status int, err error) *APIError {
	return unreadable(op, protocol, status, err, textAnswerMismatch, "message", op.output, "reason", err.Error())
}

// graphqlEnvelopes: per operation, the type of its GraphQL answer {"data": {"<operation>": answer},
// "errors": [...]}, so that one pass of the decoder reads the answer straight into its struct.
var graphqlEnvelopes sync.Map // *operation -> reflect.Type

func graphqlEnvelope(op *operation, out any) reflect.Value {
	found, ok := graphqlEnvelopes.Load(op)
	if !ok {
		data := reflect.StructOf([]reflect.StructField{{Name: "Answer", Type: reflect.TypeOf(out), Tag: reflect.StructTag(`json:"` + op.name + `"`)}})
		found, _ = graphqlEnvelopes.LoadOrStore(op, reflect.StructOf([]reflect.StructField{
			{Name: "Data", Type: reflect.PointerTo(data), Tag: `json:"data"`},
			{Name: "Errors", Type: reflect.TypeOf(json.RawMessage(nil)), Tag: `json:"errors"`},
		}))
	}
	envelope := reflect.New(found.(reflect.Type))
	data := reflect.New(envelope.Elem().Field(0).Type().Elem())
	data.Elem().Field(0).Set(reflect.ValueOf(out))
	envelope.Elem().Field(0).Set(data)
	return envelope
}

// graphqlError is the code (a server code, else INTERNAL) and message of the first error of errors, if any.
func graphqlError(errors json.RawMessage) (ErrorCode, string, bool) {
	var list []any
	if len(errors) == 0 || json.Unmarshal(errors, &list) != nil || len(list) == 0 {
		return "", "", false
	}
	first, _ := list[0].(map[string]any)
	message, _ := first["message"].(string)
	extensions, _ := first["extensions"].(map[string]any)
	if code, _ := extensions["code"].(string); isServerCode(code) {
		return ErrorCode(code), message, true
	}
	return CodeInternal, message, true
}

// malformedAnswer is a 2xx whose body is not the answer (not JSON, null, GraphQL without its data):
// never retried; to a write CodeOutcomeUnknown, saying it may have happened.
func malformedAnswer(op *operation, protocol Protocol, status int, cause error) *APIError {
	return unreadable(op, protocol, status, cause, textMalformedAnswer, "status", strconv.Itoa(status))
}

// bareStatus is a failure whose body is not the error model (a proxy's HTML page): the code of
// its status (any 5xx CodeUnavailable: the service did not answer), with the status and Retry-After.
func bareStatus(op *operation, protocol Protocol, status int, wait time.Duration) *APIError {
	code := codeOfHTTPStatus(status)
	if status >= 500 {
		code = faultNoAnswer
	}
	return &APIError{Code: code, Message: fill(textHttpStatus, "status", strconv.Itoa(status)), Operation: op.name, Protocol: protocol, HTTPStatus: status, RetryAfter: wait}
}

// jsonObject reports whether content is a JSON object (not a syntax error, null, a list or a scalar).
func jsonObject(content []byte) bool {
	trimmed := bytes.TrimSpace(content)
	return len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed)
}

func readGraphQL(op *operation, status int, content []byte, wait time.Duration, out any) error {
	if !jsonObject(content) {
		if status < 200 || status >= 300 {
			return bareStatus(op, ProtocolGraphQL, status, wait)
		}
		return malformedAnswer(op, ProtocolGraphQL, status, nil)
	}
	envelope := graphqlEnvelope(op, out)
	err := json.Unmarshal(content, envelope.Interface())
	if code, message, failed := graphqlError(envelope.Elem().Field(1).Bytes()); failed {
		return &APIError{Code: code, Message: message, Operation: op.name, Protocol: ProtocolGraphQL, HTTPStatus: status, RetryAfter: wait}
	}
	if status < 200 || status >= 300 {
		return bareStatus(op, ProtocolGraphQL, status, wait)
	}
	if err != nil {
		return answerMismatch(op, ProtocolGraphQL, status, err)
	}
	// {"data": null}, or data without the operation's answer (or with null for it).
	if data := envelope.Elem().Field(0); data.IsNil() || !graphqlAnswered(content, op.name) {
		return malformedAnswer(op, ProtocolGraphQL, status, nil)
	}
	v, _ := structValue(out)
	normalize(op.output, v)
	return nil
}

// graphqlAnswered reports whether data[name] of a GraphQL answer is an object.
func graphqlAnswered(content []byte, name string) bool {
	var envelope struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(content, &envelope) != nil {
		return false
	}
	answer := bytes.TrimSpace(envelope.Data[name])
	return len(answer) > 0 && answer[0] == '{'
}

func readREST(op *operation, status int, content []byte, wait time.Duration, out any) error {
	if status >= 200 && status < 300 {
		if len(bytes.TrimSpace(content)) > 0 && !jsonObject(content) {
			return malformedAnswer(op, ProtocolREST, status, nil)
		}
		err := decodeJSON(op.output, content, out)
		if err != nil && isSyntaxError(err) {
			return malformedAnswer(op, ProtocolREST, status, err)
		}
		if err != nil {
			return answerMismatch(op, ProtocolREST, status, err)
		}
		return nil
	}
	var fields map[string]any
	if len(content) > 0 {
		if !jsonObject(content) {
			return bareStatus(op, ProtocolREST, status, wait)
		}
		if err := json.Unmarshal(content, &fields); err != nil {
			return bareStatus(op, ProtocolREST, status, wait)
		}
	}
	if oauthError, ok := fields["error"].(string); ok {
		message := oauthError
		if description, ok := fields["error_description"].(string); ok {
			message = description
		}
		return &APIError{Code: codeOfOAuthError(oauthError, status), Message: message, Operation: op.name, Protocol: ProtocolREST, HTTPStatus: status, OAuthError: oauthError, RetryAfter: wait}
	}
	code := codeOfHTTPStatus(status)
	if named, _ := fields["code"].(string); isServerCode(named) {
		code = ErrorCode(named)
	}
	message, ok := fields["message"].(string)
	if !ok {
		message = fill(textHttpStatus, "status", strconv.Itoa(status))
	}
	return &APIError{Code: code, Message: message, Operation: op.name, Protocol: ProtocolREST, HTTPStatus: status, RetryAfter: wait}
}
