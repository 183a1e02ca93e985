package index

import (
	"context"
	"errors"
	"reflect"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
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

// Attributes of the INTERNAL spans of index and dao. They live in hbkit's
// namespace, not db.*: the hbase client's CLIENT spans under them are the
// database calls, and backends count every span with db.system.name as
// one (docs/telemetry.md).
const (
	AttrTable     = attribute.Key("hbkit.table")      // the data or index table
	AttrOperation = attribute.Key("hbkit.operation")  // put, delete, check, verify, lookup...
	AttrRecords   = attribute.Key("hbkit.records")    // records (or actions) in the call
	AttrRanges    = attribute.Key("hbkit.ranges")     // key ranges of a read
	AttrMode      = attribute.Key("hbkit.index.mode") // the mode of a check
)

// span starts the INTERNAL span of one operation on table.
func (t *Table[T]) span(ctx context.Context, op, table string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	attrs = append(attrs, AttrTable.String(table), AttrOperation.String(op))
	return t.tracer.Start(ctx, op+" "+table, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// checkMetrics counts what Check finds and fixes, by table and mode.
type checkMetrics struct {
	rows, entries, missing, orphaned, stale, repaired metric.Int64Counter
}

// newCheckMetrics makes the counters of Check from mp's meter of this
// package, or the global provider's when mp is nil.
func newCheckMetrics(mp metric.MeterProvider) checkMetrics {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(instrumentationName, metric.WithInstrumentationVersion(buildinfo.Version()))
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		if err != nil {
			otel.Handle(err) // c is still a usable (no-op) counter
		}
		return c
	}
	return checkMetrics{
		rows:     counter("hbkit.index.check.rows", "{row}", "Data rows of live records an index check scanned."),
		entries:  counter("hbkit.index.check.entries", "{entry}", "Index entries an index check scanned."),
		missing:  counter("hbkit.index.check.missing", "{entry}", "Index entries a check found absent or unverified."),
		orphaned: counter("hbkit.index.check.orphaned", "{entry}", "Index entries a check found without their data row."),
		stale:    counter("hbkit.index.check.stale", "{entry}", "Index entries whose carried cells disagree with the data row."),
		repaired: counter("hbkit.index.check.repaired", "{fix}", "Fixes an index check wrote (repair and rebuild modes)."),
	}
}

// record adds what one Check run found, rep less base (the counts of the
// run it resumed), under the table and mode.
func (m checkMetrics) record(ctx context.Context, table string, mode Mode, rep, base Report) {
	ctx = context.WithoutCancel(ctx)
	attrs := metric.WithAttributes(AttrTable.String(table), AttrMode.String(mode.String()))
	for _, c := range []struct {
		counter metric.Int64Counter
		n       int64
	}{
		{m.rows, rep.DataRows - base.DataRows}, {m.entries, rep.Entries - base.Entries},
		{m.missing, rep.Missing - base.Missing}, {m.orphaned, rep.Orphaned - base.Orphaned},
		{m.stale, rep.Stale - base.Stale}, {m.repaired, rep.Repaired - base.Repaired},
	} {
		c.counter.Add(ctx, c.n, attrs)
	}
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
