package index_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

func TestOptionsValidated(t *testing.T) {
	b, _ := newFakeBackend(t)
	tests := []struct {
		name string
		opt  index.Option
		want error
	}{
		{"nil clock", index.WithClock(nil), index.ErrInvalidOption},
		{"negative grace", index.WithGracePeriod(-time.Second), index.ErrInvalidOption},
		{"no attempts", index.WithMaxAttempts(0), index.ErrInvalidOption},
		{"no parallelism", index.WithParallelism(0), index.ErrInvalidOption},
		{"empty batches", index.WithBatchSize(0), index.ErrInvalidOption},
		{"bad table name", index.WithTableNames(map[string]string{"sms": "bad name"}), index.ErrInvalidOption},
		{"validator of another type", index.WithValidator(func(*int) error { return nil }), index.ErrInvalidOption},
		{"validator of the record type", index.WithValidator(func(*schema.SMS) error { return nil }), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := index.NewSMS(b.c, tc.opt)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestValidatorRejectsBeforeAnyWrite(t *testing.T) {
	b, _ := newFakeBackend(t)
	errBlocked := errors.New("blocked account")
	s := b.sms(t, index.WithValidator(func(m *schema.SMS) error {
		if m.Account == "spam" {
			return errBlocked
		}
		return nil
	}))
	err := s.PutBatch(context.Background(), []*schema.SMS{msg(1, "spam", 0), msg(2, "acme", time.Hour)})
	var be *index.BatchError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Index != 0 ||
		!errors.Is(err, errBlocked) || !errors.Is(err, index.ErrInvalidRecord) {
		t.Fatalf("got %v, want record 0 rejected by the validator", err)
	}
	assertMessages(t, s, "spam", nil)
	assertMessages(t, s, "acme", []string{msg(2, "", 0).Mobile})
}

func TestResumeChecksTheCheckpoint(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	s := b.sms(t)
	var saved []index.Checkpoint
	if _, err := s.Check(ctx, index.ModeVerify, index.WithCheckpoint(func(cp index.Checkpoint) error {
		saved = append(saved, cp)
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	if len(saved) == 0 || !saved[len(saved)-1].Done {
		t.Fatalf("checkpoints %+v, want a final done one", saved)
	}
	for _, cp := range []index.Checkpoint{
		{Table: "sms", Mode: "repair", Pass: 1},
		{Table: "other", Mode: "verify", Pass: 1},
		{Table: "sms", Mode: "verify", Pass: 3},
	} {
		if _, err := s.Check(ctx, index.ModeVerify, index.WithResume(cp)); !errors.Is(err, index.ErrBadCheckpoint) {
			t.Errorf("resume from %+v: got %v, want ErrBadCheckpoint", cp, err)
		}
	}
	if err := s.Put(ctx, msg(1, "acme", 0)); err != nil {
		t.Fatal(err)
	}
	errStop := errors.New("disk full")
	rep, err := s.Check(ctx, index.ModeVerify, index.WithCheckpoint(func(index.Checkpoint) error { return errStop }))
	if !errors.Is(err, errStop) || rep.DataRows != 1 || rep.Entries != 0 {
		t.Fatalf("a failing save stops the run after its batch: got %+v, %v", rep, err)
	}
}
