// Package transport is the machinery behind the clients of the public package: refusals,
// deadlines, retries, pagination, the flat shape, and the GraphQL, REST and gRPC transports, read
// from the facts of the service (facts.go, codes.go). Nothing here is API: the public package
// declares the clients and their options, and aliases the few types a call hands back (APIError,
// ErrorCode, Protocol).
package transport

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"
)

// Protocol is a wire protocol a client speaks (the public package's Protocol).
type Protocol string

// The protocols, as the public package's constants name them.
const (
	ProtocolGraphQL Protocol = "graphql"
	ProtocolREST    Protocol = "rest"
	ProtocolGRPC    Protocol = "grpc"
)

// protocols in their canonical order.
var protocols = []Protocol{ProtocolGraphQL, ProtocolREST, ProtocolGRPC}

// The roles of the two clients, as the facts name them.
const (
	RoleAdmin = "admin"
	RoleUser  = "user"
)

// RetryPolicy is the retry policy of a client's calls; the public package's RetryPolicy converts to it.
type RetryPolicy struct {
	Attempts  int
	BaseDelay time.Duration
	MaxDelay  time.Duration
}

// DefaultRetryPolicy fills the zero fields of a client's policy.
var DefaultRetryPolicy = RetryPolicy{Attempts: retryAttempts, BaseDelay: retryBaseDelay, MaxDelay: retryMaxDelay}

// GRPCSecurity is how the gRPC connection is secured: by the service URL's scheme unless an option says.
type GRPCSecurity int

const (
	GRPCBySchema GRPCSecurity = iota
	GRPCOverTLS
	GRPCPlaintext
)

// Config is what the options of both clients set, and what their constructors add.
type Config struct {
	Protocol      Protocol
	GRPCEndpoint  string
	ExtraHeaders  map[string]string
	ServerVersion string
	ReadOnly      bool
	Timeout       time.Duration
	TimeoutSet    bool
	MaxResponse   int64
	Retry         RetryPolicy
	HTTPClient    *http.Client
	GRPCSecurity  GRPCSecurity
	GRPCTLS       *tls.Config
	Insecure      bool
	AccessToken   string
	// Fills are the values of the input fields the client fills in where a call leaves them
	// empty (the fills of its operations), by field name.
	Fills map[string]string
	// Credentials are the headers of every call: the secret, or nothing.
	Credentials map[string]string
	// VersionAnswers make the answer struct of each version read, by operation name (nil: none).
	VersionAnswers map[string]func() any
	// Logger takes a record per attempt and a warning per answer field kept raw (nil: the
	// environment's <API>_LOG says, else nothing is logged).
	Logger *slog.Logger
	// Middleware wraps every HTTP attempt (GraphQL and REST), the first given outermost.
	Middleware []Middleware
	// GRPC is what the gRPC options set (grpc_conn.go; nothing where the build leaves gRPC out).
	GRPC GRPCConfig

	problems []string
}

// Middleware wraps one HTTP attempt: it may change the request, look at the response, or answer
// itself; next sends the request on (the public package's Middleware).
type Middleware func(request *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// EnvironmentName is the environment variable of a setting: <API>_SERVICE_URL for SERVICE_URL.
func EnvironmentName(setting string) string { return envPrefix + "_" + setting }

// FromEnvironment is the value of a setting's environment variable ("" when it is unset).
func FromEnvironment(setting string) string { return os.Getenv(EnvironmentName(setting)) }

// Problem records a configuration the client cannot use; Init fails naming every one.
func (c *Config) Problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// CallConfig is what the options of one call set.
type CallConfig struct {
	Headers map[string]string
	Timeout time.Duration
	// IdempotencyKey is the caller's key of the call (nil: one made for the call, if it takes one).
	IdempotencyKey *string
	// MaxRetries is the retries of the call instead of the client's policy (nil: the policy's).
	MaxRetries *int
	// Response is told what came with the call (WithResponseInto): its last attempt's status and
	// headers, and how many attempts it took; on success and on failure alike.
	Response func(RawResponse)
	// JSONSet are top-level input fields sent as given (WithJSONSet), in the order given.
	JSONSet []JSONField
}

// JSONField is a top-level input field of WithJSONSet: its wire name and value.
type JSONField struct {
	Name  string
	Value any
}

// RawResponse is what came with a call (the public package's RawResponse, documented there).
type RawResponse struct {
	StatusCode int
	Header     http.Header
	Protocol   Protocol
	Attempts   int
}

// told is r as WithResponseInto tells it: its Header never nil.
func (r RawResponse) told() RawResponse {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	return r
}

func lowerKeys(headers map[string]string) map[string]string {
	out := make(map[string]string, len(headers))
	for key, value := range headers {
		out[strings.ToLower(key)] = value
	}
	return out
}

// MergeHeaders is a copy of base with extra added (extra wins, whatever the case of its keys).
func MergeHeaders(base, extra map[string]string) map[string]string {
	out := lowerKeys(base)
	for key, value := range extra {
		out[strings.ToLower(key)] = value
	}
	return out
}
