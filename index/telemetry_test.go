package index_test

import (
	"context"
	"errors"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hbkit/hbkit/index"
)

func TestSpans(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	s := b.sms(t, index.WithTracerProvider(tp))
	m := msg(1, "acme", time.Hour)
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	bad := *m
	bad.Mobile = "x"
	if err := s.Put(ctx, &bad); !errors.Is(err, index.ErrInvalidRecord) {
		t.Fatal(err)
	}
	if _, err := s.MessagesOfAccountOnDate(ctx, "acme", day0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(ctx, index.ModeVerify); err != nil {
		t.Fatal(err)
	}
	want := []string{"put sms", "put sms", "lookup sms_index", "check sms"}
	spans := rec.Ended()
	if len(spans) != len(want) {
		t.Fatalf("%d spans, want %v", len(spans), want)
	}
	for i, sp := range spans {
		if sp.Name() != want[i] {
			t.Errorf("span %d: got %q, want %q", i, sp.Name(), want[i])
		}
		for _, a := range sp.Attributes() {
			if v := a.Value.String(); v == m.Mobile || v == bad.Mobile {
				t.Errorf("span %q carries a key value in %s", sp.Name(), a.Key)
			}
		}
	}
	if got := spans[1].Status().Code.String(); got != "Error" {
		t.Errorf("failed put: status %s", got)
	}
}
