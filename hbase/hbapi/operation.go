package hbapi

import "context"

// StartOperation is c.Operation(ctx) when c is a client with operation
// timeouts (a *Client, or anything with its Operation method); for others
// (the fake, a mock) it returns ctx and an end that returns its error.
func StartOperation(ctx context.Context, c any) (context.Context, func(error) error) {
	if o, ok := c.(interface {
		Operation(context.Context) (context.Context, func(error) error)
	}); ok {
		return o.Operation(ctx)
	}
	return ctx, func(err error) error { return err }
}
