// Package transport is the machinery behind the clients of the public package: refusals,
// deadlines, retries, pagination, the flat shape, and the GraphQL, REST and gRPC transports, read
// from the facts of the service (facts.go, codes.go). Nothing here is API: the public package
// declares the clients and their options, and aliases the few types a call hands back (APIError,
// ErrorCode, Protocol).
package transport

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
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
	GRPCDial      []grpc.DialOption
	GRPCSecurity  GRPCSecurity
	GRPCTLS       *tls.Config
	Insecure      bool
	AccessToken   string
	// ClientID is the user client's client application, the default client_id of the token calls.
	ClientID string
	// Credentials are the headers of every call: the admin secret, or nothing.
	Credentials map[string]string
	// NewVersionAnswer makes the answer struct of the client's version operation (nil: none).
	NewVersionAnswer func() any

	problems []string
}

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
