package identity

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"time"

	"google.golang.org/grpc"
)

// Protocol is a wire protocol a client speaks.
type Protocol string

const (
	// ProtocolGraphQL sends every call as a GraphQL document to POST {serviceURL}/graphql (the default).
	ProtocolGraphQL Protocol = "graphql"
	// ProtocolREST sends every call to its typed route under {serviceURL}/v1.
	ProtocolREST Protocol = "rest"
	// ProtocolGRPC sends every call as a unary gRPC call to the gRPC endpoint.
	ProtocolGRPC Protocol = "grpc"
)

// protocols in their canonical order.
var protocols = []Protocol{ProtocolGraphQL, ProtocolREST, ProtocolGRPC}

// RetryPolicy says how often and how patiently reads are retried on transient failures (no
// answer, 429, 502-504). Writes are never repeated. A zero field takes its default.
type RetryPolicy struct {
	// Attempts in all, the first included; 1 turns retries off.
	Attempts int
	// BaseDelay is the wait before the second attempt; it doubles each time, with jitter.
	BaseDelay time.Duration
	// MaxDelay caps the wait between two attempts.
	MaxDelay time.Duration
}

// DefaultRetryPolicy is the policy of a client configured without one.
var DefaultRetryPolicy = RetryPolicy{Attempts: retryAttempts, BaseDelay: retryBaseDelay, MaxDelay: retryMaxDelay}

// DefaultTimeout is the deadline of a call when neither its context, its options nor the client's
// name one.
const DefaultTimeout = defaultTimeout

// DefaultMaxResponseBytes is the largest answer a client reads when it names no other (32 MiB).
const DefaultMaxResponseBytes = defaultMaxResponseBytes

// NoRetry turns retries off: every call is attempted once.
var NoRetry = RetryPolicy{Attempts: 1}

// config is what the options of both clients set.
type config struct {
	protocol       Protocol
	grpcEndpoint   string
	extraHeaders   map[string]string
	serverVersion  string
	readOnly       bool
	timeout        time.Duration
	timeoutSet     bool
	maxResponse    int64
	retry          RetryPolicy
	httpClient     *http.Client
	grpcDial       []grpc.DialOption
	grpcSecurity   grpcSecurity
	grpcTLS        *tls.Config
	insecure       bool
	accessToken    string
	configProblems []string
}

// grpcSecurity is how the gRPC connection is secured: by the service URL's scheme unless an option says.
type grpcSecurity int

const (
	grpcBySchema grpcSecurity = iota
	grpcOverTLS
	grpcPlaintext
)

func (c *config) problem(format string, args ...any) {
	c.configProblems = append(c.configProblems, fmt.Sprintf(format, args...))
}

// Option configures a UserClient (see NewClient).
type Option func(*config)

// AdminOption configures an AdminClient (see NewAdminClient).
type AdminOption func(*config)

// WithProtocol chooses the protocol of the user client's calls: ProtocolGraphQL (default),
// ProtocolREST or ProtocolGRPC. The token calls always use REST.
func WithProtocol(p Protocol) Option { return func(c *config) { c.protocol = p } }

// WithGRPCEndpoint sets the gRPC target (host:port) of the user client; by default the host of
// serviceURL with port DefaultGRPCPort.
func WithGRPCEndpoint(addr string) Option { return func(c *config) { c.grpcEndpoint = addr } }

// WithExtraHeaders adds headers (gRPC: metadata) to every request of the user client.
func WithExtraHeaders(h map[string]string) Option {
	return func(c *config) { c.extraHeaders = mergeHeaders(c.extraHeaders, h) }
}

// WithAccessToken signs the user client in: the token is sent as a bearer token (see
// UserClient.SetAccessToken).
func WithAccessToken(token string) Option { return func(c *config) { c.accessToken = token } }

// WithServerVersion tells the user client the server's version, so that it never asks (see
// WithAdminServerVersion).
func WithServerVersion(version string) Option { return func(c *config) { c.serverVersion = version } }

// WithReadOnly makes the user client refuse destructive operations before anything is sent.
func WithReadOnly() Option { return func(c *config) { c.readOnly = true } }

// WithTimeout sets the deadline of each call of the user client, the server-version lookup and
// retries included (default DefaultTimeout; 0: none beyond the context's).
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout, c.timeoutSet = d, true }
}

// WithRetry sets the retry policy of the user client's reads (default DefaultRetryPolicy; NoRetry
// turns retries off).
func WithRetry(policy RetryPolicy) Option { return func(c *config) { c.retry = policy } }

// WithHTTPClient makes the user client send GraphQL and REST calls through client; Close then
// leaves it open.
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.httpClient = client } }

// WithGRPCDialOptions adds options to the gRPC connection of the user client (after the
// transport credentials of WithGRPCTLS or WithGRPCInsecure, which a credentials option here replaces).
func WithGRPCDialOptions(opts ...grpc.DialOption) Option {
	return func(c *config) { c.grpcDial = append(c.grpcDial, opts...) }
}

// WithGRPCTLS makes the user client's gRPC connection use TLS with cfg (nil: the system's roots),
// which is the default when serviceURL is https://. cfg (a private CA in RootCAs, a client
// certificate in Certificates) also secures the client's own HTTP client for GraphQL and REST.
func WithGRPCTLS(cfg *tls.Config) Option {
	return func(c *config) { c.grpcSecurity, c.grpcTLS = grpcOverTLS, cfg }
}

// WithMaxResponseBytes sets the largest answer the user client reads, on every protocol (default
// DefaultMaxResponseBytes, 32 MiB); a larger one is CodePayloadTooLarge.
func WithMaxResponseBytes(n int64) Option { return func(c *config) { c.maxResponse = n } }

// WithGRPCInsecure makes the user client's gRPC connection plaintext, the default when serviceURL
// is http://. A host that is not loopback also needs WithInsecureTransport.
func WithGRPCInsecure() Option { return func(c *config) { c.grpcSecurity = grpcPlaintext } }

// WithInsecureTransport lets the user client send calls in clear (http://, gRPC without TLS) to a
// host that is not loopback. Without it such a call is refused before anything is sent, since it
// would carry a token or a password.
func WithInsecureTransport() Option { return func(c *config) { c.insecure = true } }

// WithAdminProtocol chooses the protocol of the admin client's calls: ProtocolGraphQL (default),
// ProtocolREST or ProtocolGRPC.
func WithAdminProtocol(p Protocol) AdminOption { return func(c *config) { c.protocol = p } }

// WithAdminGRPCEndpoint sets the gRPC target (host:port) of the admin client; by default the host
// of serviceURL with port DefaultGRPCPort.
func WithAdminGRPCEndpoint(addr string) AdminOption { return func(c *config) { c.grpcEndpoint = addr } }

// WithAdminExtraHeaders adds headers (gRPC: metadata) to every request of the admin client.
func WithAdminExtraHeaders(h map[string]string) AdminOption {
	return func(c *config) { c.extraHeaders = mergeHeaders(c.extraHeaders, h) }
}

// WithAdminServerVersion tells the admin client the server's version. Without it the client asks
// the server once, the first time an operation's minimum version matters.
func WithAdminServerVersion(version string) AdminOption {
	return func(c *config) { c.serverVersion = version }
}

// WithAdminReadOnly makes the admin client refuse destructive operations before anything is sent.
func WithAdminReadOnly() AdminOption { return func(c *config) { c.readOnly = true } }

// WithAdminTimeout sets the deadline of each call of the admin client, the server-version lookup
// and retries included (default DefaultTimeout; 0: none beyond the context's).
func WithAdminTimeout(d time.Duration) AdminOption {
	return func(c *config) { c.timeout, c.timeoutSet = d, true }
}

// WithAdminRetry sets the retry policy of the admin client's reads (default DefaultRetryPolicy;
// NoRetry turns retries off).
func WithAdminRetry(policy RetryPolicy) AdminOption { return func(c *config) { c.retry = policy } }

// WithAdminHTTPClient makes the admin client send GraphQL and REST calls through client; Close then
// leaves it open.
func WithAdminHTTPClient(client *http.Client) AdminOption {
	return func(c *config) { c.httpClient = client }
}

// WithAdminGRPCDialOptions adds options to the gRPC connection of the admin client (after the
// transport credentials of WithAdminGRPCTLS or WithAdminGRPCInsecure, which a credentials option
// here replaces).
func WithAdminGRPCDialOptions(opts ...grpc.DialOption) AdminOption {
	return func(c *config) { c.grpcDial = append(c.grpcDial, opts...) }
}

// WithAdminGRPCTLS makes the admin client's gRPC connection use TLS with cfg (nil: the system's
// roots), which is the default when serviceURL is https://. cfg also secures the client's own HTTP
// client for GraphQL and REST.
func WithAdminGRPCTLS(cfg *tls.Config) AdminOption {
	return func(c *config) { c.grpcSecurity, c.grpcTLS = grpcOverTLS, cfg }
}

// WithAdminMaxResponseBytes sets the largest answer the admin client reads, on every protocol
// (default DefaultMaxResponseBytes, 32 MiB); a larger one is CodePayloadTooLarge.
func WithAdminMaxResponseBytes(n int64) AdminOption { return func(c *config) { c.maxResponse = n } }

// WithAdminGRPCInsecure makes the admin client's gRPC connection plaintext, the default when
// serviceURL is http://. A host that is not loopback also needs WithAdminInsecureTransport.
func WithAdminGRPCInsecure() AdminOption { return func(c *config) { c.grpcSecurity = grpcPlaintext } }

// WithAdminInsecureTransport lets the admin client send calls in clear (http://, gRPC without TLS)
// to a host that is not loopback. Without it such a call is refused before anything is sent, since
// it would carry the admin secret.
func WithAdminInsecureTransport() AdminOption { return func(c *config) { c.insecure = true } }

// CallOption configures one call.
type CallOption func(*callConfig)

type callConfig struct {
	headers map[string]string
	timeout time.Duration
}

// WithHeader adds a header (gRPC: metadata) to this call only; it wins over the client's.
func WithHeader(key, value string) CallOption {
	return func(c *callConfig) { c.headers = mergeHeaders(c.headers, map[string]string{key: value}) }
}

// WithHeaders adds headers (gRPC: metadata) to this call only; they win over the client's.
func WithHeaders(h map[string]string) CallOption {
	return func(c *callConfig) { c.headers = mergeHeaders(c.headers, h) }
}

// WithCallTimeout sets the deadline of this call, retries included, instead of the client's.
func WithCallTimeout(d time.Duration) CallOption { return func(c *callConfig) { c.timeout = d } }

// AdminClient calls the admin interface of the service, one method per operation. It is safe for
// concurrent use; Close releases its connections.
type AdminClient struct {
	core core
}

// NewAdminClient returns a client of the admin interface at serviceURL (such as
// http://localhost:8080) that authenticates every call with adminSecret, the server's
// --admin-secret. It fails only on a configuration it cannot use; nothing is sent before the
// first call.
func NewAdminClient(serviceURL, adminSecret string, opts ...AdminOption) (*AdminClient, error) {
	cfg := config{}
	for _, opt := range opts {
		opt(&cfg)
	}
	if adminSecret == "" {
		cfg.problem("adminSecret is required")
	}
	c := &AdminClient{}
	if err := c.core.init(roleAdmin, serviceURL, cfg, map[string]string{adminSecretHeader: adminSecret}); err != nil {
		return nil, err
	}
	return c, nil
}

// GRPCEndpoint is the gRPC target the client uses when its protocol is ProtocolGRPC.
func (c *AdminClient) GRPCEndpoint() string { return c.core.grpcEndpoint }

// Protocol is the protocol of the client's calls.
func (c *AdminClient) Protocol() Protocol { return c.core.protocol }

// Close releases the client's connections (its gRPC connection, and the idle connections of its
// own HTTP client); calls in flight end CodeCancelled, and a call after Close is refused (make a new client).
func (c *AdminClient) Close() error { return c.core.close() }

// UserClient calls the user interface of the service and its token routes, one method per
// operation. It is safe for concurrent use; Close releases its connections.
type UserClient struct {
	core core
}

// NewClient returns a client of the user interface at serviceURL (such as http://localhost:8080)
// for the client application clientID, which is also the default client_id of the token calls.
// It fails only on a configuration it cannot use; nothing is sent before the first call.
func NewClient(clientID, serviceURL string, opts ...Option) (*UserClient, error) {
	cfg := config{}
	for _, opt := range opts {
		opt(&cfg)
	}
	if clientID == "" {
		cfg.problem("clientID is required")
	}
	c := &UserClient{}
	c.core.clientID = clientID
	if err := c.core.init(roleUser, serviceURL, cfg, nil); err != nil {
		return nil, err
	}
	c.core.setAccessToken(cfg.accessToken)
	return c, nil
}

// SetAccessToken signs the client in with token (from Login, Signup, ...) for the calls that
// follow; "" signs it out.
func (c *UserClient) SetAccessToken(token string) { c.core.setAccessToken(token) }

// GRPCEndpoint is the gRPC target the client uses when its protocol is ProtocolGRPC.
func (c *UserClient) GRPCEndpoint() string { return c.core.grpcEndpoint }

// Protocol is the protocol of the client's calls (the token calls always use REST).
func (c *UserClient) Protocol() Protocol { return c.core.protocol }

// Close releases the client's connections (its gRPC connection, and the idle connections of its
// own HTTP client); calls in flight end CodeCancelled, and a call after Close is refused (make a new client).
func (c *UserClient) Close() error { return c.core.close() }

// Ptr returns a pointer to v, for the optional fields of inputs: Email: identity.Ptr("a@b.c").
func Ptr[T any](v T) *T { return &v }

// String returns a pointer to v, for optional string fields of inputs.
func String(v string) *string { return &v }

// Bool returns a pointer to v, for optional bool fields of inputs.
func Bool(v bool) *bool { return &v }

// Int32 returns a pointer to v, for optional int32 fields of inputs.
func Int32(v int32) *int32 { return &v }

// Int64 returns a pointer to v, for optional int64 fields of inputs.
func Int64(v int64) *int64 { return &v }

// Float64 returns a pointer to v, for optional float64 fields of inputs.
func Float64(v float64) *float64 { return &v }
