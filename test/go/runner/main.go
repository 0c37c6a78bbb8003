// Command runner is the Go column of the conformance matrix (test/conformance/go-runner.ts): one
// JSON request per line on stdin, one JSON answer per line on stdout (the protocol is described at
// the top of test/conformance/runners.ts). Each call goes through the generated client exactly as
// an application makes it: the method named after the operation (identity.Operations), its input
// decoded into that method's input struct, its answer marshalled as it is.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
)

type request struct {
	ID          int               `json:"id"`
	Mode        string            `json:"mode"`
	Surface     string            `json:"surface"`
	Operation   string            `json:"operation"`
	Protocol    identity.Protocol `json:"protocol"`
	Input       json.RawMessage   `json:"input"`
	Headers     map[string]string `json:"headers"`
	AccessToken *string           `json:"access_token"`
	Config      struct {
		ServiceURL    string `json:"service_url"`
		GRPCEndpoint  string `json:"grpc_endpoint"`
		ServerVersion string `json:"server_version"`
		AdminSecret   string `json:"admin_secret"`
		// An org-admin's call: their access token instead of the admin secret.
		AdminAccessToken string `json:"admin_access_token"`
		ClientID         string `json:"client_id"`
		TimeoutMs        *int64 `json:"timeout_ms"`
		MaxResponse      *int64 `json:"max_response_bytes"`
		// RetryAttempts, when given, retries calls with a short backoff (the lost-answer column);
		// otherwise every call is attempted once.
		RetryAttempts *int `json:"retry_attempts"`
		TLS           *struct {
			CAFile   string  `json:"ca_file"`
			CertFile *string `json:"cert_file"`
			KeyFile  *string `json:"key_file"`
		} `json:"tls"`
	} `json:"config"`
}

type clientKey struct {
	client   string
	protocol identity.Protocol
	url      string
	tls      string
	limits   string
	token    string
}

type closer interface{ Close() error }

var (
	operations = map[string]identity.OperationInfo{}
	clients    = map[clientKey]closer{}
)

// clientFor keeps one client per role, protocol and service, as the TypeScript column does.
func clientFor(r *request, info identity.OperationInfo) (closer, error) {
	tlsConfig, tlsKey, err := runnerTLS(r)
	if err != nil {
		return nil, err
	}
	retry := identity.NoRetry
	if r.Config.RetryAttempts != nil {
		retry = identity.RetryPolicy{Attempts: max(1, *r.Config.RetryAttempts), BaseDelay: 10 * time.Millisecond}
	}
	limits := fmt.Sprint(deref(r.Config.TimeoutMs), "|", deref(r.Config.MaxResponse), "|", retry.Attempts)
	key := clientKey{info.Client, r.Protocol, r.Config.ServiceURL, tlsKey, limits, r.Config.AdminAccessToken}
	if client, ok := clients[key]; ok {
		return client, nil
	}
	var client closer
	if info.Client == "admin" {
		opts := []identity.AdminOption{identity.WithAdminProtocol(r.Protocol), identity.WithAdminGRPCEndpoint(r.Config.GRPCEndpoint),
			identity.WithAdminServerVersion(r.Config.ServerVersion), identity.WithAdminRetry(retry)}
		if tlsConfig != nil {
			opts = append(opts, identity.WithAdminGRPCTLS(tlsConfig))
		}
		if r.Config.TimeoutMs != nil {
			opts = append(opts, identity.WithAdminTimeout(time.Duration(*r.Config.TimeoutMs)*time.Millisecond))
		}
		if r.Config.MaxResponse != nil {
			opts = append(opts, identity.WithAdminMaxResponseBytes(*r.Config.MaxResponse))
		}
		if r.Config.AdminAccessToken != "" {
			opts = append(opts, identity.WithAdminAccessToken(r.Config.AdminAccessToken))
		}
		client, err = identity.NewAdminClient(r.Config.ServiceURL, r.Config.AdminSecret, opts...)
	} else {
		opts := []identity.Option{identity.WithProtocol(r.Protocol), identity.WithGRPCEndpoint(r.Config.GRPCEndpoint),
			identity.WithServerVersion(r.Config.ServerVersion), identity.WithRetry(retry)}
		if tlsConfig != nil {
			opts = append(opts, identity.WithGRPCTLS(tlsConfig))
		}
		if r.Config.TimeoutMs != nil {
			opts = append(opts, identity.WithTimeout(time.Duration(*r.Config.TimeoutMs)*time.Millisecond))
		}
		if r.Config.MaxResponse != nil {
			opts = append(opts, identity.WithMaxResponseBytes(*r.Config.MaxResponse))
		}
		client, err = identity.NewClient(r.Config.ClientID, r.Config.ServiceURL, opts...)
	}
	if err != nil {
		return nil, err
	}
	clients[key] = client
	return client, nil
}

// deref is the value of an optional number, or -1 when absent.
func deref(n *int64) int64 {
	if n == nil {
		return -1
	}
	return *n
}

// runnerTLS is the TLS configuration of the request's private CA and client certificate (one
// option: WithGRPCTLS secures the client's own HTTP client too), and a key naming it.
func runnerTLS(r *request) (*tls.Config, string, error) {
	given := r.Config.TLS
	if given == nil {
		return nil, "", nil
	}
	pem, err := os.ReadFile(given.CAFile)
	if err != nil {
		return nil, "", err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, "", fmt.Errorf("no certificate in %s", given.CAFile)
	}
	config := &tls.Config{RootCAs: roots}
	key := given.CAFile
	if given.CertFile != nil && *given.CertFile != "" {
		certificate, err := tls.LoadX509KeyPair(*given.CertFile, *given.KeyFile)
		if err != nil {
			return nil, "", err
		}
		config.Certificates = []tls.Certificate{certificate}
		key += "|" + *given.CertFile
	}
	return config, key, nil
}

func handle(r *request) (map[string]any, error) {
	info, ok := operations[r.Operation]
	if !ok {
		return nil, fmt.Errorf("no operation %s", r.Operation)
	}
	client, err := clientFor(r, info)
	if err != nil {
		return nil, err
	}
	method := reflect.ValueOf(client).MethodByName(info.Method)
	if !method.IsValid() {
		return nil, fmt.Errorf("%T has no method %s", client, info.Method)
	}
	in := reflect.New(method.Type().In(1).Elem())
	decoder := json.NewDecoder(bytes.NewReader(r.Input))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(in.Interface()); err != nil {
		return nil, fmt.Errorf("input of %s: %w", r.Operation, err)
	}
	var options []identity.CallOption
	if user, ok := client.(*identity.UserClient); ok {
		token := ""
		if r.AccessToken != nil {
			token = *r.AccessToken
		}
		user.SetAccessToken(token)
		defer user.SetAccessToken("")
	} else {
		options = append(options, identity.WithHeaders(r.Headers))
	}
	results := method.CallSlice([]reflect.Value{reflect.ValueOf(context.Background()), in, reflect.ValueOf(options)})
	if failure, _ := results[1].Interface().(error); failure != nil {
		var apiErr *identity.APIError
		if !errors.As(failure, &apiErr) {
			return nil, fmt.Errorf("%s failed with an error that is not an *APIError: %v", r.Operation, failure)
		}
		reply := map[string]any{"id": r.ID, "ok": false, "code": apiErr.Code, "message": apiErr.Message, "refused": apiErr.Refused,
			"operation": apiErr.Operation, "protocol": apiErr.Protocol, "status": nil, "retry_after_seconds": nil}
		if apiErr.HTTPStatus != 0 {
			reply["status"] = apiErr.HTTPStatus
		}
		if apiErr.RetryAfter != 0 {
			reply["retry_after_seconds"] = apiErr.RetryAfter.Seconds()
		}
		return reply, nil
	}
	return map[string]any{"id": r.ID, "ok": true, "answer": results[0].Interface()}, nil
}

func main() {
	for _, info := range identity.Operations() {
		operations[info.Name] = info
	}
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for scanner.Scan() {
		if len(bytes.TrimSpace(scanner.Bytes())) == 0 {
			continue
		}
		var r request
		reply, err := func() (reply map[string]any, err error) {
			defer func() {
				if recovered := recover(); recovered != nil {
					err = fmt.Errorf("panic: %v\n%s", recovered, debug.Stack())
				}
			}()
			if err := json.Unmarshal(scanner.Bytes(), &r); err != nil {
				return nil, err
			}
			return handle(&r)
		}()
		if err != nil {
			reply = map[string]any{"id": r.ID, "crash": err.Error()}
		}
		line, err := json.Marshal(reply)
		if err != nil {
			line, _ = json.Marshal(map[string]any{"id": r.ID, "crash": "answer not JSON: " + err.Error()})
		}
		out.Write(append(line, '\n'))
		out.Flush()
	}
	for _, client := range clients {
		client.Close()
	}
}
