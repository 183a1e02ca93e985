package index

import (
	"context"
	"errors"
	"reflect"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/internal/buildinfo"
)

// instrumentationName names the package's tracer: its import path; its
// version is hbkit's (internal/buildinfo).
const instrumentationName = "github.com/hbkit/hbkit/index"

func newTracer(tp trace.TracerProvider) trace.Tracer { return NewTracer(tp, instrumentationName) }

// NewTracer returns the tracer named scope (an import path) from tp, or
// from the global provider when tp is nil. Package dao makes one per
// store with it and passes it to New (Config.Tracer): a store's spans
// come from one tracer.
func NewTracer(tp trace.TracerProvider, scope string) trace.Tracer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(scope, trace.WithInstrumentationVersion(buildinfo.Version()))
}

// span starts the span of one operation on table.
func (t *Table[T]) span(ctx context.Context, op, table string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	attrs = append(attrs,
		attribute.String("db.system.name", "hbase"),
		attribute.String("db.collection.name", table),
		attribute.String("db.operation.name", op))
	return t.tracer.Start(ctx, op+" "+table, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// end records err on the span and ends it.
func end(span trace.Span, err error) {
	EndSpan(span, err, ErrExists, ErrConflict, ErrAborted, ErrUnknownIndex, ErrBadCheckpoint)
}

// EndSpan records err, if any, on span and ends it: status Error, and
// error.type naming the first of known (then context.Canceled and
// context.DeadlineExceeded) that err wraps, else err's Go type. Messages
// may quote keys, so they are not used.
func EndSpan(span trace.Span, err error, known ...error) {
	if err != nil {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(attribute.String("error.type", errorType(err, known)))
	}
	span.End()
}

func errorType(err error, known []error) string {
	for _, list := range [][]error{known, {context.Canceled, context.DeadlineExceeded}} {
		for _, s := range list {
			if errors.Is(err, s) {
				return s.Error()
			}
		}
	}
	return reflect.TypeOf(err).String()
}
