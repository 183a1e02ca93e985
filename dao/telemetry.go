package dao

import (
	"context"
	"errors"
	"reflect"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

const (
	instrumentationName    = "github.com/hbkit/hbkit/dao"
	instrumentationVersion = "0.1.0"
)

func newTracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(instrumentationName, trace.WithInstrumentationVersion(instrumentationVersion))
}

// span starts the span of one write of the store, "{op} {table}": the
// index protocol's round trips and retries run under it. Attributes carry
// the table and the record count, never keys or values.
//
// Without WithTracerProvider, a write is traced only when its context
// already carries a valid span: starting a root span per write on the
// global provider costs a plain write on a fast client a tenth of its
// time (BenchmarkOverheadFake) for spans a program that never set a
// provider throws away.
func (r *Repo[T]) span(ctx context.Context, op writeOp, records int) (context.Context, trace.Span) {
	return writeSpan(ctx, r.tracer, r.traceAll, op, r.name, records)
}

// writeSpan starts the span of a write of a store (Repo, Wide) on table.
func writeSpan(ctx context.Context, tracer trace.Tracer, traceAll bool, op writeOp, table string, records int) (context.Context, trace.Span) {
	if !traceAll && !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, noSpan
	}
	ctx, span := tracer.Start(ctx, op.String()+" "+table, trace.WithSpanKind(trace.SpanKindInternal))
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("db.system.name", "hbase"),
			attribute.String("db.collection.name", table),
			attribute.String("db.operation.name", op.String()),
			attribute.Int("db.operation.batch.size", records))
	}
	return ctx, span
}

// noSpan is the span of an untraced write.
var noSpan = trace.SpanFromContext(context.Background())

// end records err on the span and ends it.
func end(span trace.Span, err error) {
	if span == noSpan {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(attribute.String("error.type", errorType(err)))
	}
	span.End()
}

// errorType names an error for error.type: the sentinel it wraps, else its
// Go type. Messages may quote keys, so they are not used.
func errorType(err error) string {
	for _, s := range []error{ErrInvalidRecord, ErrExists, ErrNotAttempted, ErrConflict, ErrAborted, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return reflect.TypeOf(err).String()
}
