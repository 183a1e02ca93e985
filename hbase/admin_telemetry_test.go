package hbase

import (
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/internal/pb"
)

func adminSpanAttr(s sdktrace.ReadOnlySpan, key attribute.Key) (string, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value.String(), true
		}
	}
	return "", false
}

// Each admin call is one client span "{operation} {table}" covering the
// DDL request and the procedure polls; failures carry error.type.
func TestAdminSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })

	m := ddlMaster(t, map[uint64]*procScript{101: {running: 2, last: procState(pb.GetProcedureResultResponse_FINISHED)}},
		map[string]*pb.ExceptionResponse{"DeleteTable": masterException(excTableNotDisabled, "t", true)})
	c := fakeMasterClient(t, m)
	o := c.opts
	o.tracerProvider = tp
	tel, err := newTelemetry(&o)
	if err != nil {
		t.Fatal(err)
	}
	c.tel = tel

	if err := c.CreateTable(t.Context(), TableDescriptor{Name: "crm:calls", Families: []FamilyDescriptor{{Name: "d"}}}, nil); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if err := c.DeleteTable(t.Context(), "crm:calls"); !errors.Is(err, ErrTableNotDisabled) {
		t.Fatalf("DeleteTable = %v, want ErrTableNotDisabled", err)
	}
	if _, err := c.ListNamespaces(t.Context()); err == nil {
		t.Fatalf("ListNamespaces on a master that does not know it succeeded")
	}

	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3 (one per call, polls included)", len(spans))
	}
	tests := []struct {
		name, op, collection, errType string
	}{
		{"CREATE_TABLE crm:calls", "CREATE_TABLE", "crm:calls", ""},
		{"DELETE_TABLE crm:calls", "DELETE_TABLE", "crm:calls", excTableNotDisabled},
		{"LIST_NAMESPACES", "LIST_NAMESPACES", "", "org.apache.hadoop.hbase.exceptions.UnknownProtocolException"},
	}
	for i, tt := range tests {
		s := spans[i]
		if s.Name() != tt.name || s.SpanKind() != trace.SpanKindClient {
			t.Errorf("span %d = %q (%v), want %q (client)", i, s.Name(), s.SpanKind(), tt.name)
		}
		if v, _ := adminSpanAttr(s, attrDBOperation); v != tt.op {
			t.Errorf("span %q db.operation.name = %q, want %q", s.Name(), v, tt.op)
		}
		if v, _ := adminSpanAttr(s, attrDBSystem); v != "hbase" {
			t.Errorf("span %q db.system.name = %q, want hbase", s.Name(), v)
		}
		if v, ok := adminSpanAttr(s, attrDBCollection); v != tt.collection || ok != (tt.collection != "") {
			t.Errorf("span %q db.collection.name = %q, %v; want %q", s.Name(), v, ok, tt.collection)
		}
		v, _ := adminSpanAttr(s, attrErrorType)
		if v != tt.errType {
			t.Errorf("span %q error.type = %q, want %q", s.Name(), v, tt.errType)
		}
		// The master answered each failure: its exception class is the
		// response's status code.
		if v, ok := adminSpanAttr(s, attrDBStatusCode); v != tt.errType || ok != (tt.errType != "") {
			t.Errorf("span %q db.response.status_code = %q, %v; want %q", s.Name(), v, ok, tt.errType)
		}
		if wantErr := tt.errType != ""; (s.Status().Code == codes.Error) != wantErr {
			t.Errorf("span %q status = %v, want error %v", s.Name(), s.Status(), wantErr)
		}
		if v, _ := adminSpanAttr(s, attrServerAddress); v != "master.test" {
			t.Errorf("span %q server.address = %q, want master.test", s.Name(), v)
		}
	}
}
