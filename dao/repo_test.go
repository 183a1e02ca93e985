package dao_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/seeds"
)

func TestPutGetDelete(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	m := msg("13812345678", t0, 7)
	if err := r.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, ok, err := r.Get(ctx, &seeds.SMS{Mobile: m.Mobile, SentAt: m.SentAt, Seq: m.Seq})
	if err != nil || !ok {
		t.Fatalf("Get = %v, %v, %v; want the record", got, ok, err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("Get = %+v, want %+v", got, m)
	}
	if _, ok, err := r.Get(ctx, &seeds.SMS{Mobile: m.Mobile, SentAt: m.SentAt, Seq: 8}); err != nil || ok {
		t.Errorf("Get of another seq = %v, %v; want not found", ok, err)
	}
	if err := r.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.Get(ctx, m); err != nil || ok {
		t.Errorf("Get after Delete = %v, %v; want not found", ok, err)
	}
}

// invalidSMS are records the SMS repository must reject before writing.
func invalidSMS() []struct {
	name  string
	rec   *seeds.SMS
	field string
	cause error // a sentinel of keys the error must also match, if any
} {
	good := func(edit func(*seeds.SMS)) *seeds.SMS {
		m := msg("13812345678", t0, 1)
		edit(m)
		return m
	}
	return []struct {
		name  string
		rec   *seeds.SMS
		field string
		cause error
	}{
		{"mobile with a letter", good(func(m *seeds.SMS) { m.Mobile = "1381234567x" }), "mobile", nil},
		{"mobile too short", good(func(m *seeds.SMS) { m.Mobile = "1381234" }), "mobile", nil},
		{"missing account", good(func(m *seeds.SMS) { m.Account = "" }), "account", nil},
		{"time before the epoch", good(func(m *seeds.SMS) { m.SentAt = time.Unix(-1, 0) }), "sent", nil},
		{"zero time", good(func(m *seeds.SMS) { m.SentAt = time.Time{} }), "sent", nil},
		{"time after year 9999", good(func(m *seeds.SMS) { m.SentAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), "sent", nil},
		{"seq too wide for the key", good(func(m *seeds.SMS) { m.Seq = 0x10000 }), "unique", keys.ErrWidth},
		{"nil record", nil, "", nil},
	}
}

func TestPutRejectsInvalidRecords(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	fl := &flaky{Client: f}
	r := newSMS(t, fl, f)
	for _, tc := range invalidSMS() {
		t.Run(tc.name, func(t *testing.T) {
			err := r.Put(ctx, tc.rec)
			if !errors.Is(err, dao.ErrInvalidRecord) {
				t.Fatalf("Put = %v, want ErrInvalidRecord", err)
			}
			var ve *dao.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field || ve.Table != "sms" {
				t.Fatalf("Put = %#v, want a *ValidationError for field %q of table sms", err, tc.field)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Errorf("Put = %v, want it to wrap %v", err, tc.cause)
			}
		})
	}
	if fl.puts != 0 || fl.batches != 0 {
		t.Errorf("%d puts and %d batches reached the client, want none", fl.puts, fl.batches)
	}
	if ks := rawKeys(t, f, "sms"); len(ks) != 0 {
		t.Errorf("table holds %d rows after rejected puts, want 0", len(ks))
	}
}

func TestPutBatchRejectsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	fl := &flaky{Client: f}
	r := newSMS(t, fl, f)
	cases := invalidSMS()
	var recs []*seeds.SMS
	var bad []int
	for i, tc := range cases {
		recs = append(recs, msg("13900000001", t0.Add(time.Duration(i)*time.Second), 0)) // valid
		recs = append(recs, tc.rec)
		bad = append(bad, 2*i+1)
	}
	results, err := r.PutBatch(ctx, recs)
	var be *dao.BatchError
	if !errors.As(err, &be) || !be.Rejected {
		t.Fatalf("PutBatch = %v, want a rejected *BatchError", err)
	}
	if !reflect.DeepEqual(be.Indexes(), bad) {
		t.Errorf("failed records %v, want %v", be.Indexes(), bad)
	}
	if !errors.Is(err, dao.ErrInvalidRecord) {
		t.Errorf("PutBatch = %v, want it to match ErrInvalidRecord", err)
	}
	if len(results) != len(recs) {
		t.Fatalf("%d results for %d records", len(results), len(recs))
	}
	for i, res := range results {
		want := dao.ErrNotAttempted
		if i%2 == 1 {
			want = dao.ErrInvalidRecord
		}
		if !errors.Is(res, want) {
			t.Errorf("result %d = %v, want %v", i, res, want)
		}
	}
	if fl.batches != 0 || fl.puts != 0 {
		t.Errorf("%d batches and %d puts reached the client, want none", fl.batches, fl.puts)
	}
	if ks := rawKeys(t, f, "sms"); len(ks) != 0 {
		t.Errorf("table holds %d rows, want 0", len(ks))
	}
}

func TestNewOptions(t *testing.T) {
	f := newFake(t)
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts []dao.Option
		ok   bool
	}{
		{"defaults", nil, true},
		// The SMS check (seeds.ValidateSMS) is the schema's Spec.Validate
		// now, not an option.
		{"all valid", []dao.Option{dao.WithBatchSize(10), dao.WithScanConcurrency(2), dao.WithScanCaching(100)}, true},
		{"zero batch size", []dao.Option{dao.WithBatchSize(0)}, false},
		{"huge batch size", []dao.Option{dao.WithBatchSize(dao.MaxBatchSize + 1)}, false},
		{"zero concurrency", []dao.Option{dao.WithScanConcurrency(0)}, false},
		{"negative caching", []dao.Option{dao.WithScanCaching(-1)}, false},
		{"nil option", []dao.Option{nil}, false},
		{"table name", []dao.Option{dao.WithTableNames(map[string]string{"sms": "ns:sms_copy"})}, true},
		{"empty table name", []dao.Option{dao.WithTableNames(map[string]string{"sms": ""})}, false},
		{"bad table name", []dao.Option{dao.WithTableNames(map[string]string{"sms": "no spaces"})}, false},
		// A validator or writer of another record type, a nil validator
		// and a nil writer cannot be written any more: validation is
		// the schema's Spec.Validate and indexed writes need no writer.
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dao.New(f, tbl, tc.opts...)
			if tc.ok && err != nil {
				t.Fatalf("New = %v, want success", err)
			}
			if !tc.ok && !errors.Is(err, dao.ErrInvalidOption) {
				t.Fatalf("New = %v, want ErrInvalidOption", err)
			}
		})
	}
	if _, err := dao.New[seeds.SMS](nil, tbl); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("New(nil client) = %v, want ErrInvalidOption", err)
	}
	if _, err := dao.New[seeds.SMS](f, nil); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("New(nil table) = %v, want ErrInvalidOption", err)
	}
}
