package index_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
)

func TestSpans(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	s := b.sms(t, dao.WithTracerProvider(tp))
	m := msg(1, "acme", time.Hour)
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	bad := *m
	bad.Mobile = "x"
	if err := s.Put(ctx, &bad); !errors.Is(err, dao.ErrInvalidRecord) {
		t.Fatal(err)
	}
	if _, err := s.MessagesOfAccountOnDate(ctx, "acme", day0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(ctx, index.ModeVerify); err != nil {
		t.Fatal(err)
	}
	// The put's verification is sent in the background, under a span of
	// its own that may end before or after the put's.
	want := []string{"check sms", "lookup sms_index", "put sms", "put sms", "verify sms"}
	spans := rec.Ended()
	var names []string
	failed := 0
	for _, sp := range spans {
		names = append(names, sp.Name())
		for _, a := range sp.Attributes() {
			if v := a.Value.String(); v == m.Mobile || v == bad.Mobile {
				t.Errorf("span %q carries a key value in %s", sp.Name(), a.Key)
			}
		}
		if sp.Status().Code.String() == "Error" {
			failed++
			if sp.Name() != "put sms" {
				t.Errorf("span %q failed", sp.Name())
			}
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("spans %v, want %v", names, want)
	}
	if failed != 1 {
		t.Errorf("%d failed spans, want the invalid put's", failed)
	}
}
