package transport

import (
	"context"
	"iter"
)

// The wire names of page-style pagination, as in every client of the service (a token-style list
// names its cursor fields in its operation's facts).
const (
	paginationField = "pagination"
	pageLimitField  = "limit"
	pageNumberField = "page"
	pageOffsetField = "offset"
	pageTotalField  = "total"
)

// Pages walks every page of a paginated list, each answer once; pages are fetched as the loop
// asks for more. A failure is yielded once, as the last element, with a nil page.
func Pages[Out any](ctx context.Context, c *Core, op *Operation, in any, settings CallConfig) iter.Seq2[*Out, error] {
	return func(yield func(*Out, error) bool) {
		if ctx == nil {
			ctx = context.Background()
		}
		protocol := c.protocolOf(op)
		fail := func(err error) {
			if settings.Response != nil {
				settings.Response(RawResponse{Protocol: protocol}.told())
			}
			yield(nil, err)
		}
		if refused := callOptionProblem(op, protocol, settings); refused != nil {
			fail(refused)
			return
		}
		admitted := func() error {
			ctx, cancel := c.withTimeout(ctx, settings.Timeout)
			defer cancel()
			return c.admit(ctx, op, protocol)
		}
		if err := admitted(); err != nil {
			fail(err)
			return
		}
		base, err := c.prepare(op, protocol, in, settings)
		if err != nil {
			fail(err)
			return
		}
		// Each page is one call, with the call's deadline of its own.
		page := func(request map[string]any, out any) error {
			ctx, cancel := c.withTimeout(ctx, settings.Timeout)
			defer cancel()
			response := RawResponse{Protocol: protocol}
			if settings.Response != nil {
				defer func() { settings.Response(response.told()) }()
			}
			return c.attempt(ctx, op, protocol, request, out, settings, &response)
		}
		next := pager(op, base)
		for request := next(nil, 0); request != nil; {
			out := new(Out)
			if err := page(request, out); err != nil {
				yield(nil, err)
				return
			}
			if !yield(out, nil) {
				return
			}
			request = next(out, answerField(op.output, out, op.pagination.items).Len())
		}
	}
}

// Items walks every item of a paginated list, page after page, each exactly once; pages are
// fetched as the loop asks for more. A failure is yielded once, as the last element.
func Items[Out any, Item any](ctx context.Context, c *Core, op *Operation, in any, settings CallConfig) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		var zero Item
		for out, err := range Pages[Out](ctx, c, op, in, settings) {
			if err != nil {
				yield(zero, err)
				return
			}
			list := answerField(op.output, out, op.pagination.items)
			for i := 0; i < list.Len(); i++ {
				if !yield(list.Index(i).Interface().(Item), nil) {
					return
				}
			}
		}
	}
}

// pager answers the request of the first page (answer nil), then of the page after answer, or
// nil when the list has ended.
func pager(op *Operation, base map[string]any) func(answer any, count int) map[string]any {
	with := func(key string, value any) map[string]any {
		request := make(map[string]any, len(base)+1)
		for k, v := range base {
			request[k] = v
		}
		request[key] = value
		return request
	}
	if op.pagination.style == paginationToken {
		seen := map[string]bool{}
		return func(answer any, count int) map[string]any {
			if answer == nil {
				return base
			}
			token := answerString(op.output, answer, op.pagination.nextCursor)
			// A token handed out twice would loop for ever; the list ends there.
			if token == "" || seen[token] {
				return nil
			}
			seen[token] = true
			return with(op.pagination.cursor, token)
		}
	}
	requested, _ := base[paginationField].(map[string]any)
	limit, ok := requested[pageLimitField].(int64)
	if !ok {
		limit = op.pagination.pageSize
		if limit == 0 {
			limit = iteratePageLimit
		}
	}
	page, ok := requested[pageNumberField].(int64)
	if !ok {
		page = 1
	}
	return func(answer any, count int) map[string]any {
		if answer != nil {
			info := answerField(op.output, answer, paginationField)
			if count == 0 || !info.IsValid() || info.IsNil() {
				return nil
			}
			offset, _ := answerInt(pageInfoMessage(op), info.Interface(), pageOffsetField)
			total, _ := answerInt(pageInfoMessage(op), info.Interface(), pageTotalField)
			if offset+int64(count) >= total {
				return nil
			}
			page++
		}
		return with(paginationField, map[string]any{pageLimitField: limit, pageNumberField: page})
	}
}

// pageInfoMessage is the message of the page information in op's answer.
func pageInfoMessage(op *Operation) string {
	for _, f := range messageFacts[op.output] {
		if f.name == paginationField {
			return f.ref
		}
	}
	return ""
}
