package dao

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/index"
)

// instrumentationName names the store's tracer: the import path of the
// package users call.
const instrumentationName = "github.com/hbkit/hbkit/dao"

func newTracer(tp trace.TracerProvider) trace.Tracer { return index.NewTracer(tp, instrumentationName) }

// span starts the span of one write of the store, "{op} {table}": the
// index protocol's round trips and retries run under it. It is an
// INTERNAL span with hbkit.* attributes (the table, the operation, the
// record count; never keys or values), not db.* ones: the client's CLIENT
// spans under it are the database calls.
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
			index.AttrTable.String(table),
			index.AttrOperation.String(op.String()),
			index.AttrRecords.Int(records))
	}
	return ctx, span
}

// noSpan is the span of an untraced write.
var noSpan = trace.SpanFromContext(context.Background())

// end records err on the span and ends it (index.EndSpan).
func end(span trace.Span, err error) {
	if span == noSpan {
		return
	}
	index.EndSpan(span, err, ErrInvalidRecord, ErrExists, ErrNotAttempted, ErrConflict, ErrAborted)
}
