package transport

// Operation is what every call of one operation goes by (facts.go holds one per operation, Op<Method>).
type Operation struct {
	// name is the snake_case operation name, as the server and the errors name it.
	name string
	// pascalName is the operation as refusals name it (and the client method).
	pascalName string
	// client is the role of the client that has the method: admin or user.
	client      string
	surface     string
	kind        string
	destructive bool
	auth        string
	// authAnyOf: every scheme it takes, any one of which lets a caller in, where it takes several (nil: auth alone).
	authAnyOf  []string
	deprecated string
	// protocols that carry it, in canonical order, with the minimum server version over each.
	protocols []Protocol
	since     map[Protocol]string
	// fixedProtocol is the protocol of every call whatever the client's (token routes: rest).
	fixedProtocol Protocol
	// versionGated: protocols over which a call first needs the server's version.
	versionGated map[Protocol]bool
	// retried: sent again on transient failures (reads, idempotent writes, writes with a key).
	retried bool
	// idempotencyKey: each call carries an Idempotency-Key, the same on every attempt.
	idempotencyKey bool
	// fills: input fields the client fills in with its own values where the call leaves them empty.
	fills      []string
	graphql    *graphqlBinding
	rest       *restBinding
	grpc       *grpcBinding
	pagination *pagination
	// input and output are the message names of the facts table.
	input  string
	output string
}

// isRead reports whether op is a read (the other kind is a write).
func (op *Operation) isRead() bool { return op.kind == "read" }

type graphqlBinding struct {
	// document is the document the TypeScript client sends, byte for byte.
	document string
	// withParams: sent with the variables {"params": input}.
	withParams bool
}

type restBinding struct {
	method string
	// path holds {field} segments for the input fields of pathParams.
	path       string
	pathParams []string
	// headers: the input fields request headers carry instead, as {field, header in lower case}.
	headers [][2]string
	// inQuery: the other input fields travel in the query string (GET, DELETE), else in a JSON body.
	inQuery bool
	// redirect: a browser's route, answered with a redirect; a call answers its URL without sending it.
	redirect bool
}

type grpcBinding struct {
	// path is /<package>.<Service>/<Rpc>; request and response are fully-qualified message names.
	path     string
	request  string
	response string
}

const (
	paginationPage  = "page"
	paginationToken = "token"
)

type pagination struct {
	// style is page (pagination {limit, page}) or token (a cursor handed back and forth).
	style string
	// items is the answer field holding the items.
	items string
	// pageSize is what an iterator asks for when the input names none (page style).
	pageSize int64
	// cursor and nextCursor are the input field asking for the page after a cursor and the
	// answer field handing it back (token style).
	cursor, nextCursor string
}

// OperationInfo describes one operation; the public package's OperationInfo converts from it
// (the same fields, documented there).
type OperationInfo struct {
	Name        string
	Method      string
	Client      string
	Surface     string
	Kind        string
	Destructive bool
	Auth        string
	AuthAnyOf   []string
	Since       map[Protocol]string
	Protocols   []Protocol
	Deprecated  string
}

// Operations describes every operation of the service, in the order of its manifest.
func Operations() []OperationInfo {
	infos := make([]OperationInfo, len(operationList))
	for i, op := range operationList {
		since := make(map[Protocol]string, len(op.since))
		for p, v := range op.since {
			since[p] = v
		}
		authAnyOf := []string{op.auth}
		if op.authAnyOf != nil {
			authAnyOf = append([]string(nil), op.authAnyOf...)
		}
		infos[i] = OperationInfo{
			Name:        op.name,
			Method:      op.pascalName,
			Client:      op.client,
			Surface:     op.surface,
			Kind:        op.kind,
			Destructive: op.destructive,
			Auth:        op.auth,
			AuthAnyOf:   authAnyOf,
			Since:       since,
			Protocols:   append([]Protocol(nil), op.protocols...),
			Deprecated:  op.deprecated,
		}
	}
	return infos
}

func indexOperations(list []*Operation) map[string]*Operation {
	byName := make(map[string]*Operation, len(list))
	for _, op := range list {
		byName[op.name] = op
	}
	return byName
}
