package transport

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// transport moves one attempt of one operation: the flat input out, the answer into out (a
// pointer to the answer struct), or an *APIError; seen takes what came with the answer.
type transport interface {
	call(ctx context.Context, op *Operation, protocol Protocol, body map[string]any, headers map[string]string, out any, seen *exchange) error
}

// sdkHeaders name the client on every request of every protocol: User-Agent (over gRPC, the
// connection's user agent) and x-api-client, "go/<SDK version> go/<Go version>".
var sdkHeaders = map[string]string{
	"user-agent":   userAgent,
	"x-api-client": "go/" + sdkVersion + " go/" + strings.TrimPrefix(runtime.Version(), "go"),
}

// Core is what both clients go through: refusals before any byte is sent (protocol, server
// version, read-only mode, call options), headers, idempotency keys, deadlines, retries. The same
// steps as the TypeScript client's core, from the same facts.
type Core struct {
	protocol     Protocol
	serviceURL   string
	grpcEndpoint string
	// grpcEndpointIsDefault: no option named the endpoint, which the client derived from the service URL.
	grpcEndpointIsDefault bool
	// optionPrefix is "With" for the user client, "WithAdmin" for the admin client.
	optionPrefix string
	fills        map[string]string
	readOnly     bool
	timeout      time.Duration
	retry        RetryPolicy
	versionOp    *Operation
	// newVersionAnswer makes the answer struct of versionOp.
	newVersionAnswer func() any
	// credentials: the secret's header, or nothing (the user client's token is added per call).
	credentials  map[string]string
	extraHeaders map[string]string
	// logger takes the records of attempts and warnings (nil: nothing is logged).
	logger *slog.Logger

	http    *httpTransport
	ownHTTP bool

	mu       sync.Mutex
	question *versionQuestion // the server's version being asked, while it is
	closed   bool             // after Close(): every call is refused
	grpc     *grpcTransport
	grpcTLS  *tls.Config // nil: plaintext
	grpcDial []dialOption
	// inClear is, per protocol, why a call may not be sent (plaintext to another host), or "".
	inClear     map[Protocol]string
	version     string
	accessToken string
	headers     map[string]string // extra headers, then credentials and the bearer token: lower-case keys
}

// Init readies a client of role at serviceURL with what its options and constructor set, or fails
// naming every setting it cannot use. Nothing is sent before the first call.
func (c *Core) Init(role, serviceURL string, cfg Config) error {
	problems := cfg.problems
	c.protocol = cfg.Protocol
	if c.protocol == "" {
		c.protocol = ProtocolGraphQL
	}
	if !slices.Contains(protocols, c.protocol) {
		problems = append(problems, fmt.Sprintf("protocol must be one of graphql, rest, grpc, not %q", string(c.protocol)))
	} else if c.protocol == ProtocolGRPC && !grpcBuiltIn {
		problems = append(problems, grpcLeftOut)
	}
	if serviceURL == "" {
		serviceURL = FromEnvironment("SERVICE_URL")
	}
	c.serviceURL = strings.TrimRight(serviceURL, "/")
	endpoint, err := defaultGRPCEndpoint(c.serviceURL)
	if serviceURL == "" {
		problems = append(problems, "serviceURL is required, or the environment variable "+EnvironmentName("SERVICE_URL"))
	} else if err != nil {
		problems = append(problems, err.Error())
	}
	c.grpcEndpoint = cfg.GRPCEndpoint
	if c.grpcEndpoint != "" && !grpcEndpointPattern.MatchString(c.grpcEndpoint) {
		problems = append(problems, fmt.Sprintf("the gRPC endpoint (WithGRPCEndpoint, WithAdminGRPCEndpoint) must be host:port, such as localhost:%d, not %q", grpcPort, c.grpcEndpoint))
	}
	if c.grpcEndpoint == "" {
		c.grpcEndpoint, c.grpcEndpointIsDefault = endpoint, true
	}
	if cfg.ServerVersion != "" {
		if _, err := parseVersion(cfg.ServerVersion); err != nil {
			problems = append(problems, "server version: "+err.Error())
		}
		c.version = cfg.ServerVersion
	}
	if cfg.Timeout < 0 {
		problems = append(problems, "timeout must not be negative")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", packageName, strings.Join(problems, "; "))
	}
	c.fills = cfg.Fills
	c.readOnly = cfg.ReadOnly
	c.timeout = cfg.Timeout
	if !cfg.TimeoutSet {
		c.timeout = DefaultTimeout
	}
	c.retry = cfg.Retry
	if c.retry.Attempts <= 0 {
		c.retry.Attempts = DefaultRetryPolicy.Attempts
	}
	if c.retry.BaseDelay <= 0 {
		c.retry.BaseDelay = DefaultRetryPolicy.BaseDelay
	}
	if c.retry.MaxDelay <= 0 {
		c.retry.MaxDelay = DefaultRetryPolicy.MaxDelay
	}
	op := versionOperations[role]
	if role == RoleAdmin && cfg.AccessToken != "" && tokenVersionOperation != "" {
		// A role holder's token cannot ask the admin's own version read where that needs the secret: it asks the open one.
		op = tokenVersionOperation
	}
	if newAnswer := cfg.VersionAnswers[op]; op != "" && newAnswer != nil {
		c.versionOp, c.newVersionAnswer = operationsByName[op], newAnswer
	}
	c.credentials = lowerKeys(cfg.Credentials)
	c.extraHeaders = lowerKeys(cfg.ExtraHeaders)
	https := strings.HasPrefix(strings.ToLower(c.serviceURL), "https://")
	if cfg.GRPCSecurity == GRPCOverTLS || (cfg.GRPCSecurity == GRPCBySchema && https) {
		c.grpcTLS = &tls.Config{}
		if cfg.GRPCTLS != nil {
			c.grpcTLS = cfg.GRPCTLS.Clone()
		}
	}
	serviceHost := ""
	if parsed, err := url.Parse(c.serviceURL); err == nil {
		serviceHost = parsed.Hostname()
	}
	prefix := "With"
	if role == RoleAdmin {
		prefix = "WithAdmin"
	}
	c.optionPrefix = prefix
	allow := prefix + "InsecureTransport()"
	overHTTP := inClear(https, serviceHost, c.serviceURL, "use an https:// serviceURL", allow, cfg.Insecure)
	grpcHost, _, _ := net.SplitHostPort(c.grpcEndpoint)
	c.inClear = map[Protocol]string{
		ProtocolGraphQL: overHTTP,
		ProtocolREST:    overHTTP,
		ProtocolGRPC:    inClear(c.grpcTLS != nil, grpcHost, "gRPC "+c.grpcEndpoint, "use "+prefix+"GRPCTLS (the default for an https:// serviceURL)", allow, cfg.Insecure),
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		c.ownHTTP = true
		httpClient = newHTTPClient(cfg.GRPCTLS)
	} else {
		// The caller's client, as it is but for redirects, which it might follow with the
		// credential headers: a copy that answers them instead (its transport, jar and timeout shared).
		own := *httpClient
		own.CheckRedirect = answerRedirects
		httpClient = &own
	}
	maxResponse := cfg.MaxResponse
	if maxResponse <= 0 {
		maxResponse = DefaultMaxResponseBytes
	}
	c.grpcDial = grpcDialOptions(cfg.GRPC, maxResponse, userAgent)
	c.http = &httpTransport{serviceURL: c.serviceURL, client: httpClient, maxBytes: maxResponse, send: chain(httpClient.Do, cfg.Middleware)}
	c.logger = cfg.Logger
	if c.logger == nil {
		c.logger = loggerOfEnvironment()
	}
	c.accessToken = cfg.AccessToken
	c.headers = c.buildHeaders()
	return nil
}

// grpcEndpointPattern is a gRPC target as the clients take it: a host name, IPv4 or bracketed
// IPv6 address, and a port (no scheme, no path).
var grpcEndpointPattern = regexp.MustCompile(`^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$`)

// defaultGRPCEndpoint is the host of the service URL with the service's gRPC port.
func defaultGRPCEndpoint(serviceURL string) (string, error) {
	parsed, err := url.Parse(serviceURL)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Hostname() == "" {
		return "", fmt.Errorf("serviceURL must be an http or https URL such as http://localhost:8080, not %q", serviceURL)
	}
	return net.JoinHostPort(parsed.Hostname(), strconv.Itoa(grpcPort)), nil
}

// isLoopback: localhost, 127.0.0.0/8 and ::1, traffic that never leaves the machine.
func isLoopback(host string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// inClear is why a call may not go to target in clear, or "": TLS, loopback, or the insecure option.
func inClear(secure bool, host, target, remedy, option string, allowed bool) string {
	if secure || allowed || isLoopback(host) {
		return ""
	}
	return fill(textInClear, "target", target, "remedy", remedy, "option", option)
}

// maxConnsPerHost is the most connections the client's own HTTP client holds to the service.
const maxConnsPerHost = 64

// newHTTPClient is the client's own HTTP client; tlsConfig (WithGRPCTLS), when given, secures it too.
func newHTTPClient(tlsConfig *tls.Config) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if tlsConfig != nil {
		t.TLSClientConfig = tlsConfig.Clone()
	}
	// One client serves concurrent calls to one host: keep their connections for reuse, and open no
	// more than that many at once (more calls wait for one), so a burst cannot take every socket.
	t.MaxIdleConnsPerHost = maxConnsPerHost
	t.MaxConnsPerHost = maxConnsPerHost
	return &http.Client{Transport: t, CheckRedirect: answerRedirects}
}

// answerRedirects makes a redirect the answer, never followed: Go would forward the secret's
// header (any header but Authorization and Cookie) to whatever address the redirect names.
func answerRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// buildHeaders: the SDK's own, extra headers, then the credential of the surface. Called with
// c.mu held or before use.
func (c *Core) buildHeaders() map[string]string {
	headers := MergeHeaders(MergeHeaders(sdkHeaders, c.extraHeaders), c.credentials)
	if c.accessToken != "" {
		headers["authorization"] = "Bearer " + c.accessToken
	}
	return headers
}

// SetAccessToken signs the client in with token for the calls that follow; "" signs it out.
func (c *Core) SetAccessToken(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accessToken = token
	c.headers = c.buildHeaders()
}

func (c *Core) baseHeaders() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.headers
}

func (c *Core) transport(protocol Protocol) (transport, error) {
	if protocol != ProtocolGRPC {
		return c.http, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.grpc == nil {
		t, err := newGRPCTransport(c.grpcEndpoint, c.grpcTLS, c.grpcDial)
		if err != nil {
			return nil, err
		}
		if c.grpcEndpointIsDefault {
			t.defaultEndpoint, t.option = c.grpcEndpoint, c.optionPrefix+"GRPCEndpoint"
		}
		c.grpc = t
	}
	return c.grpc, nil
}

// GRPCEndpoint is the gRPC target of the client.
func (c *Core) GRPCEndpoint() string { return c.grpcEndpoint }

// Protocol is the protocol of the client's calls.
func (c *Core) Protocol() Protocol { return c.protocol }

// Close releases the client's connections; calls in flight end cancelled, and later calls are refused.
func (c *Core) Close() error {
	c.mu.Lock()
	grpc := c.grpc
	c.grpc = nil
	c.closed = true
	c.mu.Unlock()
	var err error
	if grpc != nil {
		err = grpc.close()
	}
	if c.ownHTTP {
		c.http.client.CloseIdleConnections()
	}
	return err
}

func refuse(op *Operation, protocol Protocol, message string) *APIError {
	return &APIError{Code: refusalCode, Message: message, Operation: op.name, Protocol: protocol, Refused: true}
}

// refusal is a reason to refuse the call that needs no server version, or nil.
func (c *Core) refusal(op *Operation, protocol Protocol) *APIError {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return refuse(op, protocol, fill(textClientClosed, "operation", op.name))
	}
	if reason := c.inClear[protocol]; reason != "" {
		return refuse(op, protocol, reason)
	}
	if _, carried := op.since[protocol]; !carried {
		return refuse(op, protocol, fill(textNotCarried, "operation", op.pascalName, "protocol", string(protocol), "protocols", joinProtocols(op.protocols)))
	}
	if c.readOnly && op.destructive {
		return refuse(op, protocol, fill(textReadOnly, "operation", op.pascalName))
	}
	return nil
}

func joinProtocols(list []Protocol) string {
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = string(p)
	}
	return strings.Join(names, textProtocolSeparator)
}

// versionRefusal refuses an operation the server's version does not carry over protocol.
func versionRefusal(op *Operation, protocol Protocol, server string) *APIError {
	since := op.since[protocol]
	if versionAtLeast(server, since) {
		return nil
	}
	var working []Protocol
	for _, p := range op.protocols {
		if versionAtLeast(server, op.since[p]) {
			working = append(working, p)
		}
	}
	hint := textTooOldNone
	if len(working) > 0 {
		hint = fill(textTooOldUse, "protocols", joinProtocols(working))
	}
	return refuse(op, protocol, fill(textTooOld, "operation", op.pascalName, "since", since, "protocol", string(protocol), "server", server, "hint", hint))
}

// versionQuestion is one asking of the server's version, which every caller that needs it waits for.
type versionQuestion struct {
	done    chan struct{}
	version string
	err     error
}

// serverVersion is the configured version, or the one the server answers, asked once over this
// client's protocol (or the first that carries the question) under the context of the call that
// asks first. Every caller waits no longer than its own context allows, and asks again when the
// question ended with another caller's context. A failure is not kept: the next call asks again.
func (c *Core) serverVersion(ctx context.Context) (string, error) {
	for {
		c.mu.Lock()
		if c.version != "" {
			version := c.version
			c.mu.Unlock()
			return version, nil
		}
		question := c.question
		if question == nil {
			question = &versionQuestion{done: make(chan struct{})}
			c.question = question
			go c.ask(ctx, question)
		}
		c.mu.Unlock()
		select {
		case <-question.done:
			if question.err == nil {
				return question.version, nil
			}
			var apiErr *APIError
			endedByAnother := ctx.Err() == nil && errors.As(question.err, &apiErr) && (apiErr.Code == codeDeadlineExceeded || apiErr.Code == codeCancelled)
			if !endedByAnother {
				return "", question.err
			}
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// ask puts the version question to the server under ctx and tells its waiters.
func (c *Core) ask(ctx context.Context, question *versionQuestion) {
	question.version, question.err = c.askVersion(ctx)
	c.mu.Lock()
	if question.err == nil {
		c.version = question.version
	}
	c.question = nil
	c.mu.Unlock()
	close(question.done)
}

func (c *Core) askVersion(ctx context.Context) (string, error) {
	op := c.versionOp
	if op == nil {
		return "", fmt.Errorf("%s: this client cannot learn the server version; use the server version option", packageName)
	}
	protocol := c.protocol
	if _, carried := op.since[protocol]; !carried {
		protocol = op.protocols[0]
	}
	if reason := c.inClear[protocol]; reason != "" {
		return "", refuse(op, protocol, reason)
	}
	t, err := c.transport(protocol)
	if err != nil {
		return "", err
	}
	out := c.newVersionAnswer()
	body, headers, seen, started := map[string]any{}, withTraceContext(ctx, c.baseHeaders()), &exchange{}, time.Now()
	if err := t.call(ctx, op, protocol, body, headers, out, seen); err != nil {
		failure := asAPIError(ctx, err, op, protocol)
		c.logAttempt(ctx, op, protocol, 1, seen, time.Since(started), body, headers, failure, false)
		return "", failure
	}
	c.logAttempt(ctx, op, protocol, 1, seen, time.Since(started), body, headers, nil, false)
	answer := answerString(op.output, out, versionField)
	if _, err := parseVersion(answer); err != nil {
		return "", &APIError{Code: codeInternal, Message: "the server answered a version that is not one: " + err.Error(), Operation: op.name, Protocol: protocol}
	}
	return answer, nil
}

func (c *Core) withTimeout(ctx context.Context, perCall time.Duration) (context.Context, context.CancelFunc) {
	timeout := perCall
	if timeout <= 0 {
		timeout = c.timeout
	}
	if timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, timeout)
}

// prepare is the input as sent: the flat shape of in, with the fields of WithJSONSet; the fields
// the client fills in take its own values where the call leaves them empty.
func (c *Core) prepare(op *Operation, protocol Protocol, in any, settings CallConfig) (map[string]any, error) {
	body, err := toWire(op.input, in)
	if err != nil {
		return nil, &APIError{Code: codeInvalidArgument, Message: err.Error(), Operation: op.name, Protocol: protocol, Refused: true}
	}
	for _, field := range op.fills {
		if given, _ := body[field].(string); given == "" && c.fills[field] != "" {
			body[field] = c.fills[field]
		}
	}
	for _, set := range settings.JSONSet {
		value, err := jsonValue(set.Value)
		if err != nil {
			return nil, &APIError{Code: codeInvalidArgument, Message: fmt.Sprintf("%s: WithJSONSet(%q): %v", op.name, set.Name, err), Operation: op.name, Protocol: protocol, Refused: true}
		}
		body[set.Name] = value
	}
	return body, nil
}

// jsonValue is value as encoding/json reads its JSON back (numbers as json.Number, exactly).
func jsonValue(value any) (any, error) {
	data, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	decoder := json.NewDecoder(strings.NewReader(string(data)))
	decoder.UseNumber()
	var out any
	if err := decoder.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Core) protocolOf(op *Operation) Protocol {
	if op.fixedProtocol != "" {
		return op.fixedProtocol
	}
	return c.protocol
}

// admit refuses a call before anything is sent: a protocol that does not carry the operation,
// read-only mode, and a server version that does not carry it over the protocol.
func (c *Core) admit(ctx context.Context, op *Operation, protocol Protocol) error {
	if refused := c.refusal(op, protocol); refused != nil {
		return refused
	}
	if !op.versionGated[protocol] {
		return nil
	}
	server, err := c.serverVersion(ctx)
	if err != nil {
		return asCallers(asAPIError(ctx, err, op, protocol), op, protocol)
	}
	if refused := versionRefusal(op, protocol, server); refused != nil {
		return refused
	}
	return nil
}

// call is one call of op with input in (a pointer to its input struct, or nil), its answer
// decoded into out: refusals first, then the attempts, with the call's deadline over all of them.
func (c *Core) call(ctx context.Context, op *Operation, in any, out any, settings CallConfig) error {
	if ctx == nil {
		ctx = context.Background()
	}
	protocol := c.protocolOf(op)
	response := RawResponse{Protocol: protocol}
	if settings.Response != nil {
		defer func() { settings.Response(response.told()) }()
	}
	if refused := callOptionProblem(op, protocol, settings); refused != nil {
		return refused
	}
	ctx, cancel := c.withTimeout(ctx, settings.Timeout)
	defer cancel()
	if err := c.admit(ctx, op, protocol); err != nil {
		return err
	}
	body, err := c.prepare(op, protocol, in, settings)
	if err != nil {
		return err
	}
	return c.attempt(ctx, op, protocol, body, out, settings, &response)
}

// callHeaders are the headers of every attempt of one call: the client's, the call's, and the
// idempotency key of an operation that takes one (the caller's, else one made for the call), which
// replaces any header of that name.
func callHeaders(op *Operation, protocol Protocol, base map[string]string, settings CallConfig) (map[string]string, error) {
	if len(settings.Headers) == 0 && !op.idempotencyKey {
		return base, nil
	}
	headers := MergeHeaders(base, settings.Headers)
	if op.idempotencyKey {
		key := ""
		if settings.IdempotencyKey != nil {
			key = *settings.IdempotencyKey
		} else {
			made, err := newIdempotencyKey()
			if err != nil {
				return nil, &APIError{Code: codeInternal, Message: fmt.Sprintf("%s: no idempotency key could be made: %v", op.name, err), Operation: op.name, Protocol: protocol, Refused: true, cause: err}
			}
			key = made
		}
		headers[idempotencyKeyHeader] = key
	}
	return headers, nil
}

// withTraceContext is headers with the W3C trace context of ctx's span (traceparent, tracestate)
// as the application's OpenTelemetry propagator writes it (otel.SetTextMapPropagator), over every
// protocol: gRPC sends it as metadata. The default propagator writes nothing, and headers is then
// returned as it is; else a copy, so the client's own headers never keep a call's trace.
func withTraceContext(ctx context.Context, headers map[string]string) map[string]string {
	carrier := propagation.MapCarrier{}
	otel.GetTextMapPropagator().Inject(ctx, carrier)
	if len(carrier) == 0 {
		return headers
	}
	return MergeHeaders(headers, carrier)
}

// attempt sends the call, and again as the retry policy (or WithMaxRetries) allows: after a
// transient failure of an operation that is retried (a read, an idempotent write, a write with an
// idempotency key, whose every attempt carries the same key), and after a refused connection,
// which sent nothing, whatever the operation. Each attempt is logged, and response takes what came
// with the last one.
func (c *Core) attempt(ctx context.Context, op *Operation, protocol Protocol, body map[string]any, out any, settings CallConfig, response *RawResponse) error {
	t, err := c.transport(protocol)
	if err != nil {
		return asAPIError(ctx, err, op, protocol)
	}
	headers, err := callHeaders(op, protocol, c.baseHeaders(), settings)
	if err != nil {
		return err
	}
	headers = withTraceContext(ctx, headers)
	attempts := max(1, c.retry.Attempts)
	if settings.MaxRetries != nil {
		attempts = *settings.MaxRetries
		if attempts < math.MaxInt {
			attempts++
		}
	}
	for attempt := 1; ; attempt++ {
		seen, started := &exchange{}, time.Now()
		err := t.call(ctx, op, protocol, body, headers, out, seen)
		response.Attempts, response.StatusCode = attempt, seen.status
		if settings.Response != nil {
			response.Header = seen.headers()
		}
		if err == nil {
			c.logAttempt(ctx, op, protocol, attempt, seen, time.Since(started), body, headers, nil, false)
			return nil
		}
		failure := asAPIError(ctx, err, op, protocol)
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			// Close while the call was in flight: the caller ended it, as a cancelled context does.
			failure = contextFailure(context.Canceled, op, protocol, failure)
			c.logAttempt(ctx, op, protocol, attempt, seen, time.Since(started), body, headers, failure, false)
			return failure
		}
		again := (op.retried && failure.transient()) || connectionRefused(failure)
		willRetry := again && attempt < attempts && ctx.Err() == nil
		c.logAttempt(ctx, op, protocol, attempt, seen, time.Since(started), body, headers, failure, willRetry)
		if !willRetry {
			return failure
		}
		delay := c.backoff(attempt, failure)
		if deadline, ok := ctx.Deadline(); ok && time.Now().Add(delay).After(deadline) {
			return contextFailure(context.DeadlineExceeded, op, protocol, failure)
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return contextFailure(ctx.Err(), op, protocol, failure)
		case <-timer.C:
		}
	}
}

// backoff is the wait before attempt+1: what retry-after-ms or Retry-After asks (up to
// retryAfterMax), else an exponential delay with jitter.
func (c *Core) backoff(attempt int, failure *APIError) time.Duration {
	if failure.RetryAfter > 0 && failure.RetryAfter <= retryAfterMax {
		return failure.RetryAfter
	}
	delay := min(c.retry.MaxDelay, c.retry.BaseDelay<<(attempt-1))
	if delay <= 0 { // shifted past the range of a Duration
		delay = c.retry.MaxDelay
	}
	return time.Duration(float64(delay) * (0.5 + rand.Float64()/2))
}

// asAPIError is err as an *APIError of op: errors of the context become DEADLINE_EXCEEDED or
// CANCELLED, anything else UNAVAILABLE.
func asAPIError(ctx context.Context, err error, op *Operation, protocol Protocol) *APIError {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr
	}
	if ended := contextEnded(ctx); ended != nil {
		return contextFailure(ended, op, protocol, err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return contextFailure(err, op, protocol, err)
	}
	return noAnswer(op, protocol, err)
}

// asCallers is a failure of the server-version lookup named after the operation the caller called.
func asCallers(err *APIError, op *Operation, protocol Protocol) *APIError {
	if err.Operation == op.name {
		return err
	}
	named := *err
	named.Message = strings.Replace(err.Message, err.Operation, op.name, 1)
	if !strings.HasPrefix(err.Message, err.Operation) {
		named.Message = err.Message
	}
	named.Operation, named.Protocol = op.name, protocol
	return &named
}

// Invoke is one call of op with input in (a pointer to its input struct, or nil), answered as a
// new *Out.
func Invoke[Out any](ctx context.Context, c *Core, op *Operation, in any, settings CallConfig) (*Out, error) {
	out := new(Out)
	if err := c.call(ctx, op, in, out, settings); err != nil {
		return nil, err
	}
	return out, nil
}
