package index_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
)

// runTracedStore puts, finds and checks through an SMS store whose spans
// go to a recorder, and returns the ended spans.
func runTracedStore(t *testing.T, b backend, tp trace.TracerProvider, rec *tracetest.SpanRecorder) []sdktrace.ReadOnlySpan {
	t.Helper()
	ctx := context.Background()
	s := b.sms(t, dao.WithTracerProvider(tp))
	if err := s.Put(ctx, msg(1, "acme", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MessagesOfAccountOnDate(ctx, "acme", day0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(ctx, index.ModeVerify); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return rec.Ended()
}

// assertInternalSpans checks that the INTERNAL spans of dao and index
// carry hbkit's attributes and none of the database conventions' (db.*),
// which backends count as database calls; it returns how many there are.
func assertInternalSpans(t *testing.T, spans []sdktrace.ReadOnlySpan, tables ...string) int {
	t.Helper()
	n := 0
	for _, sp := range spans {
		if sp.SpanKind() != trace.SpanKindInternal {
			continue
		}
		n++
		got := map[string]string{}
		for _, a := range sp.Attributes() {
			got[string(a.Key)] = a.Value.String()
			if strings.HasPrefix(string(a.Key), "db.") {
				t.Errorf("INTERNAL span %q carries %s", sp.Name(), a.Key)
			}
		}
		op, _, _ := strings.Cut(sp.Name(), " ")
		if got[string(index.AttrOperation)] != op {
			t.Errorf("span %q: %s = %q, want %q", sp.Name(), index.AttrOperation, got[string(index.AttrOperation)], op)
		}
		if table := got[string(index.AttrTable)]; !strings.HasSuffix(sp.Name(), " "+table) || !slices.Contains(tables, table) {
			t.Errorf("span %q: %s = %q, want one of %v", sp.Name(), index.AttrTable, table, tables)
		}
		if (op == "put" || op == "verify") && got[string(index.AttrRecords)] == "" {
			t.Errorf("span %q has no %s", sp.Name(), index.AttrRecords)
		}
	}
	return n
}

// TestInternalSpanAttributes: on the fake, every span of the store is
// INTERNAL and carries hbkit.* attributes, no db.* one.
func TestInternalSpanAttributes(t *testing.T) {
	b, _ := newFakeBackend(t)
	rec := tracetest.NewSpanRecorder()
	spans := runTracedStore(t, b, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), rec)
	if n := assertInternalSpans(t, spans, b.data, b.index); n < 4 || n != len(spans) {
		t.Fatalf("%d INTERNAL spans of %d, want put, lookup, check and verify", n, len(spans))
	}
}
