package index_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// TestOptionsValidated: the settings of the protocol, of its reads and of
// the tables are options of the store (package dao); each bad one makes
// the constructor fail with an error wrapping dao.ErrInvalidOption, never
// a panic. A validator is the schema's Spec.Validate, a func(*T) error:
// one of another record type no longer compiles.
func TestOptionsValidated(t *testing.T) {
	b, _ := newFakeBackend(t)
	tests := []struct {
		name string
		open func() error
		want error
	}{
		{"nil clock", sms(b, dao.WithClock(nil)), dao.ErrInvalidOption},
		{"negative grace", sms(b, dao.WithGracePeriod(-time.Second)), dao.ErrInvalidOption},
		{"no attempts", sms(b, dao.WithMaxAttempts(0)), dao.ErrInvalidOption},
		{"no parallelism", sms(b, dao.WithScanConcurrency(0)), dao.ErrInvalidOption},
		{"empty batches", sms(b, dao.WithBatchSize(0)), dao.ErrInvalidOption},
		{"bad table name", sms(b, dao.WithTableNames(map[string]string{"sms": "bad name"})), dao.ErrInvalidOption},
		{"nil option", sms(b, nil), dao.ErrInvalidOption},
		{"validator of the record type", func() error {
			tbl, err := smsTable(func(*seeds.SMS) error { return nil })
			if err != nil {
				return err
			}
			_, err = dao.New(b.c, tbl)
			return err
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v, want an error", r)
				}
			}()
			err := tc.open()
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// sms returns the opening of an SMS store over b with opt.
func sms(b backend, opt dao.Option) func() error {
	return func() error {
		_, err := seedstore.NewSMS(b.c, opt)
		return err
	}
}

// TestValidatorRejectsBeforeAnyWrite: a record the schema's check
// (Spec.Validate) refuses fails the batch before any write.
func TestValidatorRejectsBeforeAnyWrite(t *testing.T) {
	b, _ := newFakeBackend(t)
	errBlocked := errors.New("blocked account")
	tbl, err := smsTable(func(m *seeds.SMS) error {
		if err := seeds.ValidateSMS(m); err != nil {
			return err
		}
		if m.Account == "spam" {
			return errBlocked
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := dao.New(b.c, tbl, dao.WithTableNames(b.names()), dao.WithHook(func(st index.Step) error {
		t.Errorf("write attempted: %+v", st)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	results, err := repo.PutBatch(context.Background(), []*seeds.SMS{msg(1, "spam", 0), msg(2, "acme", time.Hour)})
	var be *dao.BatchError
	var ve *dao.ValidationError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Index != 0 ||
		!errors.Is(err, errBlocked) || !errors.Is(err, dao.ErrInvalidRecord) || !errors.As(err, &ve) {
		t.Fatalf("got %v, want record 0 rejected by the validator", err)
	}
	// Validation of a batch is all or nothing: the valid record is not
	// written either.
	if !be.Rejected || len(results) != 2 || !errors.Is(results[1], dao.ErrNotAttempted) {
		t.Fatalf("results %v (rejected %v), want record 1 not attempted", results, be.Rejected)
	}
	s := b.sms(t)
	assertMessages(t, s, "spam", nil)
	assertMessages(t, s, "acme", nil)
	assertEmpty(t, b)
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
