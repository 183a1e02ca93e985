package index

import (
	"context"
	"errors"
	"reflect"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// instrumentationName names the package's tracer: its import path.
const (
	instrumentationName    = "github.com/hbkit/hbkit/index"
	instrumentationVersion = "0.1.0"
)

func newTracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(instrumentationName, trace.WithInstrumentationVersion(instrumentationVersion))
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
	if err != nil {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(attribute.String("error.type", errorType(err)))
	}
	span.End()
}

// errorType names an error for error.type: the sentinel of this package
// it wraps, else its Go type. Messages may quote keys, so they are not
// used.
func errorType(err error) string {
	for _, s := range []error{ErrExists, ErrConflict, ErrAborted, ErrUnknownIndex, ErrBadCheckpoint, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return reflect.TypeOf(err).String()
}
