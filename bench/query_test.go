package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// TestWriteRecordsMatchIndexedWrite: the file WriteRecords writes holds the
// very messages indexedWrite stores with the same options, client by client
// (what tools/phoenix relies on to write the same data through Phoenix).
func TestWriteRecordsMatchIndexedWrite(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC) // across midnight
	opts := []Option{WithSeed(11), WithStart(start), WithRows(1500), WithThreads(2), WithBatchSize(64)}

	var b strings.Builder
	if err := WriteRecords(&b, opts...); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	if !sc.Scan() || sc.Text() != RecordsHeader {
		t.Fatalf("first line %q, want the header %q", sc.Text(), RecordsHeader)
	}
	var want []string
	clients := map[string]int{}
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 7 {
			t.Fatalf("line %q has %d fields, want 7", sc.Text(), len(f))
		}
		clients[f[0]]++
		want = append(want, strings.Join(f[1:], "\t"))
	}
	if len(want) != 3000 || clients["0"] != 1500 || clients["1"] != 1500 {
		t.Fatalf("%d records, per client %v; want 1500 for each of 2 clients", len(want), clients)
	}

	c := newFake(t)
	r, err := New(c, c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, "indexedWrite"); err != nil {
		t.Fatal(err)
	}
	data, err := smsDataOnly(mustSMS(t))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := dao.New(c, data, dao.WithTableNames(map[string]string{seeds.SMSTableName: r.layerNames().indexed}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for m, err := range repo.Scan(ctx, dao.Query[seeds.SMS]{}) {
		if err != nil {
			t.Fatal(err)
		}
		d := 0
		if m.Delivered {
			d = 1
		}
		got = append(got, fmt.Sprintf("%s\t%d\t%d\t%s\t%s\t%d", m.Mobile, m.SentAt.UnixMilli(), m.Seq, m.Account, m.Content, d))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("indexedWrite stored %d records, the file holds %d; first difference:\n got  %q\n want %q", len(got), len(want), got[i], want[i])
			}
		}
		t.Fatalf("indexedWrite stored %d records, the file holds %d", len(got), len(want))
	}
}

func TestWriteRecordsNeedsSeedAndStart(t *testing.T) {
	start := WithStart(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"no seed", []Option{start}},
		{"no start", []Option{WithSeed(1)}},
		{"invalid", []Option{WithSeed(1), start, WithRows(0)}},
		{"nil", []Option{WithSeed(1), start, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteRecords(&b, tc.opts...); !errors.Is(err, ErrInvalidOption) {
				t.Fatalf("WriteRecords: got %v, want ErrInvalidOption", err)
			}
			if b.Len() != 0 {
				t.Fatalf("wrote %q on error", b.String())
			}
		})
	}
}

// TestAccountOf holds accountOf to the accounts of layers.record.
func TestAccountOf(t *testing.T) {
	l := &layers{base: time.Unix(0, 0).UTC()}
	rng := mrand.New(mrand.NewPCG(1, 2))
	for _, i := range []int64{0, 1, 99, 100, 12345} {
		if got, want := accountOf(i), l.record(rng, i).Account; got != want {
			t.Fatalf("accountOf(%d) = %q, record %d has %q", i, got, i, want)
		}
	}
}

func TestAccountDayQueryOnFake(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	r := newRunner(t, c, WithRows(250), WithThreads(2), WithBatchSize(50), WithStart(start))
	if _, err := r.Run(ctx, "accountDayQuery"); !errors.Is(err, ErrNoData) {
		t.Fatalf("accountDayQuery before indexedWrite: got %v, want ErrNoData", err)
	}
	if _, err := r.Run(ctx, "indexedWrite"); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx, "accountDayQuery")
	if err != nil {
		t.Fatal(err)
	}
	// Each client's queries but its first are measured.
	if res.Rows != 500 || len(res.PerThread) != 2 || res.Latency.Count != 498 {
		t.Fatalf("result %+v; want 500 queries, 498 measured, over 2 clients", res)
	}
	// Another day holds none of the messages.
	other := newRunner(t, c, WithRows(3), WithStart(start.AddDate(0, 0, 1)))
	if _, err := other.Run(ctx, "accountDayQuery"); !errors.Is(err, ErrNoData) {
		t.Fatalf("accountDayQuery on a day without messages: got %v, want ErrNoData", err)
	}
}

func mustSMS(t *testing.T) *schema.Table[seeds.SMS] {
	t.Helper()
	st, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestIndexedWriteModeOnFake: WithIndexedWriteMode(Mutable) writes
// indexedWrite's records through a mutable store (its rows carry the
// version cell, which insert-only rows lack), and accountDayQuery reads
// them back through one.
func TestIndexedWriteModeOnFake(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	r := newRunner(t, c, WithRows(100), WithThreads(1), WithBatchSize(20), WithStart(start), WithIndexedWriteMode(schema.Mutable))
	if _, err := r.Run(ctx, "indexedWrite"); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx, "accountDayQuery")
	if err != nil || res.Rows != 100 {
		t.Fatalf("accountDayQuery = %+v, %v; want 100 queries", res, err)
	}
	rows := 0
	for row, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: r.layerNames().indexed}) {
		if err != nil {
			t.Fatal(err)
		}
		rows++
		if row.Value([]byte("cf"), []byte(index.VersionQualifier)) == nil {
			t.Fatalf("row %q has no version cell: not written by a mutable store", row.Row())
		}
	}
	if rows != 100 {
		t.Errorf("%d data rows, want 100", rows)
	}
}
