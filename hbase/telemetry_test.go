package hbase

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func TestTelemetry(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	c := fc.client(WithTracerProvider(tp), WithMeterProvider(mp))
	ctx := testCtx(t)

	var fails atomic.Int32
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if method == "Mutate" && fails.Add(1) == 1 {
				return fcException(excRegionTooBusy)
			}
			return nil
		}
	})
	if err := c.Put(ctx, tput("secret-row", "secret-value")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, &Get{Table: "ns:missing", Row: []byte("secret-row")}); err == nil {
		t.Fatal("Get of a missing table succeeded")
	}

	spans := rec.Ended()
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = s
		if s.SpanKind() != trace.SpanKindClient {
			t.Errorf("span %q kind %v, want client", s.Name(), s.SpanKind())
		}
		if got := s.InstrumentationScope().Name; got != "github.com/hbkit/hbkit/hbase" {
			t.Errorf("tracer name %q", got)
		}
		for _, a := range s.Attributes() {
			if strings.Contains(a.Value.String(), "secret") {
				t.Errorf("span %q attribute %s = %q leaks a row key or value", s.Name(), a.Key, a.Value.String())
			}
		}
		if strings.Contains(s.Status().Description, "secret") {
			t.Errorf("span %q status leaks data: %q", s.Name(), s.Status().Description)
		}
	}
	put, ok := byName["PUT t"]
	if !ok {
		t.Fatalf("no span \"PUT t\" in %v", spanNames(spans))
	}
	want := map[attribute.Key]string{
		"db.system.name":     "hbase",
		"db.namespace":       "default",
		"db.collection.name": "t",
		"db.operation.name":  "PUT",
		"server.address":     "rs1",
	}
	attrs := map[attribute.Key]string{}
	for _, a := range put.Attributes() {
		attrs[a.Key] = a.Value.String()
	}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("put span %s = %q, want %q", k, attrs[k], v)
		}
	}
	if len(put.Events()) != 1 || put.Events()[0].Name != "retry" {
		t.Errorf("put span events %v, want one retry", put.Events())
	}
	miss, ok := byName["GET ns:missing"]
	if !ok {
		t.Fatalf("no span \"GET ns:missing\" in %v", spanNames(spans))
	}
	if miss.Status().Code != codes.Error {
		t.Errorf("failed get: status %v", miss.Status())
	}
	var errType string
	for _, a := range miss.Attributes() {
		if a.Key == "error.type" {
			errType = a.Value.String()
		}
	}
	if errType == "" {
		t.Errorf("failed get has no error.type")
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			found[m.Name] = true
			if m.Name == "hbase.client.retries" {
				sum := m.Data.(metricdata.Sum[int64])
				var n int64
				for _, dp := range sum.DataPoints {
					n += dp.Value
				}
				if n != 1 {
					t.Errorf("retries counted %d, want 1", n)
				}
			}
		}
	}
	if !found["db.client.operation.duration"] || !found["hbase.client.retries"] {
		t.Errorf("metrics %v, want the duration histogram and the retry counter", found)
	}
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// Operations carry the names HBase's Java client gives them
// (HBaseSemanticAttributes.Operation), so both clients' spans and metrics
// fall in one series per operation.
func TestOperationNamesAsJava(t *testing.T) {
	for _, tt := range []struct{ internal, want string }{
		{"get", "GET"}, {"put", "PUT"}, {"delete", "DELETE"}, {"scan", "SCAN"},
		{"append", "APPEND"}, {"increment", "INCREMENT"},
		{"check_and_mutate", "CHECK_AND_MUTATE"}, {"batch", "BATCH"},
		{"mutate_row", "BATCH"}, // a RowMutations is a BATCH in the Java client
		{"create_table", "CREATE_TABLE"}, {"list_namespaces", "LIST_NAMESPACES"},
	} {
		if got := operationName(tt.internal); got != tt.want {
			t.Errorf("operationName(%q) = %q, want %q", tt.internal, got, tt.want)
		}
	}
	// Every data call starts a span: naming it must not allocate.
	for _, name := range []string{"get", "put", "delete", "scan", "append", "increment", "check_and_mutate", "batch", "mutate_row"} {
		if n := testing.AllocsPerRun(100, func() { _ = operationName(name) }); n != 0 {
			t.Errorf("operationName(%q) allocates %v times, want 0", name, n)
		}
	}
}

// db.response.status_code is set when a server answered with an
// exception (its Java class), and only then: not on success, not when the
// call failed before any server answered.
func TestResponseStatusCode(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	c := fc.client(WithTracerProvider(tp))
	ctx := testCtx(t)
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if method == "Get" {
				return fcException(excDoNotRetry)
			}
			return nil
		}
	})
	if err := c.Put(ctx, tput("r", "v")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("r")}); err == nil {
		t.Fatal("Get answered with an exception succeeded")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Put(cctx, tput("r", "v")); err == nil {
		t.Fatal("Put on a cancelled context succeeded")
	}
	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans %v, want 3", len(spans), spanNames(spans))
	}
	for i, want := range []string{"", excDoNotRetry, ""} {
		got, ok := adminSpanAttr(spans[i], attrDBStatusCode)
		if got != want || ok != (want != "") {
			t.Errorf("span %d %q db.response.status_code = %q, %v; want %q", i, spans[i].Name(), got, ok, want)
		}
	}
}
