//go:build integration

package index_test

import (
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase"
)

// TestIntegrationSpanLayers: against HBase, the store's INTERNAL spans
// carry hbkit.* attributes and no db.* one, while the native client's
// CLIENT spans under them keep db.system.name and db.collection.name: a
// backend counts each database call once.
func TestIntegrationSpanLayers(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	c := itConnect(t, hbase.WithTracerProvider(tp))
	b := itTables(t, c)
	rec.Reset()
	spans := runTracedStore(t, b, tp, rec)
	if n := assertInternalSpans(t, spans, b.data, b.index); n < 4 {
		t.Fatalf("%d INTERNAL spans, want put, lookup, check and verify", n)
	}
	internal := map[trace.SpanID]string{}
	for _, sp := range spans {
		if sp.SpanKind() == trace.SpanKindInternal {
			internal[sp.SpanContext().SpanID()] = sp.Name()
		}
	}
	under := 0
	for _, sp := range spans {
		if sp.SpanKind() != trace.SpanKindClient {
			continue
		}
		got := map[string]string{}
		for _, a := range sp.Attributes() {
			got[string(a.Key)] = a.Value.String()
		}
		if got["db.system.name"] != "hbase" || got["db.operation.name"] == "" {
			t.Errorf("CLIENT span %q: db.system.name %q, db.operation.name %q", sp.Name(), got["db.system.name"], got["db.operation.name"])
		}
		if _, ok := internal[sp.Parent().SpanID()]; ok {
			under++
			if table := got["db.collection.name"]; table != b.data && table != b.index {
				t.Errorf("CLIENT span %q under the store: db.collection.name %q", sp.Name(), table)
			}
		}
	}
	if under == 0 {
		t.Fatal("no CLIENT span under the store's INTERNAL spans")
	}
	t.Logf("%d spans, %d INTERNAL, %d CLIENT under them", len(spans), len(internal), under)
}
