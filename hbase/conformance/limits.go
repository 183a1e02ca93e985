package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// testWriteLimits pins the byte limits of writes: a cell of exactly
// hbase.DefaultMaxCellSize bytes (as hbase.CellSize counts it, HBase's
// default hbase.server.keyvalue.maxsize) is written; one byte more, or 20
// MB, is refused, alone, in a Batch, a CheckAndMutate or a MutateRow,
// with an error naming the column and never the row; a mutation over
// hbase.MaxRequestSize is refused with hbase.ErrRequestTooLarge; and a
// Batch of many times the write buffer (hbase.DefaultWriteBufferSize) is
// written whole.
func (s *suite) testWriteLimits(t *testing.T) {
	s.need(t, CellSizeLimit)
	ctx := s.ctx(t)
	tbl := s.data
	d := s.h.Data
	const row = "lim-+4915112345678" // no error may quote it
	sized := func(n int) map[string]map[string][]byte {
		return map[string]map[string][]byte{"cf2": {"big": make([]byte, n-hbapi.CellSize(b(row), "cf2", "big", nil))}}
	}
	if err := d.Put(ctx, &hbapi.Put{Table: tbl, Row: b(row), Values: sized(hbapi.DefaultMaxCellSize)}); err != nil {
		t.Fatalf("Put of a cell of hbase.DefaultMaxCellSize bytes: %v", err)
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
	if got, want := len(r.Value(b("cf2"), b("big"))), len(sized(hbapi.DefaultMaxCellSize)["cf2"]["big"]); got != want {
		t.Errorf("read back a value of %d bytes, want %d", got, want)
	}
	over := sized(hbapi.DefaultMaxCellSize + 1)
	refused := []struct {
		name string
		call func() error
	}{
		{"put one byte over", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b(row), Values: over}) }},
		{"put of 20 MB", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b(row), Values: sized(20 << 20)}) }},
		{"append", func() error {
			_, err := d.Append(ctx, &hbapi.Append{Table: tbl, Row: b(row), Values: over})
			return err
		}},
		{"check and mutate", func() error {
			_, err := d.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: tbl, Row: b(row), Family: b("cf"), Qualifier: b("none"),
				Compare: hbapi.CompareEqual, Mutations: []hbapi.Mutation{&hbapi.Put{Values: over}}})
			return err
		}},
		{"mutate row", func() error {
			return d.MutateRow(ctx, &hbapi.RowMutations{Table: tbl, Row: b(row), Mutations: []hbapi.Mutation{&hbapi.Put{Values: over}}})
		}},
		{"batch", func() error {
			res, err := d.Batch(ctx, []hbapi.Action{
				&hbapi.Put{Table: tbl, Row: b(row), Values: over},
				&hbapi.Put{Table: tbl, Row: b("lim-small"), Values: vals("cf", "q", "v")},
			})
			if err == nil || len(res) != 2 || res[1].Err != nil {
				return fmt.Errorf("batch = %v, %+v: want action 0 refused and 1 written", err, res)
			}
			return res[0].Err
		}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			wantErr(t, "call", err, hbapi.ErrCellTooLarge)
			var ie *hbapi.InvalidRequestError
			if !errors.As(err, &ie) || !strings.Contains(ie.Field, `["cf2"]["big"]`) {
				t.Errorf("error %v: want an *hbase.InvalidRequestError naming the column", err)
			}
			if err != nil && strings.Contains(err.Error(), row) {
				t.Errorf("error %q quotes the row key", err)
			}
			if hbapi.IsRetryable(err) {
				t.Errorf("error %v is retryable", err)
			}
		})
	}
	t.Run("mutation over the request size", func(t *testing.T) {
		// 30 cells of 9 MiB (one array): 270 MiB, over hbase.MaxRequestSize.
		big, wide := make([]byte, 9<<20), map[string][]byte{}
		for i := range 30 {
			wide[fmt.Sprintf("q%02d", i)] = big
		}
		err := d.Put(ctx, &hbapi.Put{Table: tbl, Row: b(row), Values: map[string]map[string][]byte{"cf2": wide}})
		wantErr(t, "put", err, hbapi.ErrRequestTooLarge)
		if err != nil && strings.Contains(err.Error(), row) {
			t.Errorf("error %q quotes the row key", err)
		}
	})
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
	if got := len(r.Value(b("cf2"), b("big"))); got != len(sized(hbapi.DefaultMaxCellSize)["cf2"]["big"]) {
		t.Errorf("after the refusals the cell holds %d bytes; a refused write changed it", got)
	}
	s.testLargeBatch(t)
}

// testLargeBatch writes 12 Puts of 1 MiB, six times the write buffer, in
// one Batch: each is written.
func (s *suite) testLargeBatch(t *testing.T) {
	ctx := s.ctx(t)
	var actions []hbapi.Action
	value := bytes.Repeat([]byte("v"), 1<<20)
	for i := range 12 {
		actions = append(actions, &hbapi.Put{Table: s.data, Row: fmt.Appendf(nil, "lim-batch-%02d", i),
			Values: map[string]map[string][]byte{"cf2": {"big": value}}})
	}
	res, err := s.h.Data.Batch(ctx, actions)
	if err != nil {
		t.Fatalf("Batch of %d MiB: %v", len(actions), err)
	}
	for i := range actions {
		if res[i].Err != nil {
			t.Errorf("action %d: %v", i, res[i].Err)
		}
		r := s.get(t, ctx, &hbapi.Get{Table: s.data, Row: fmt.Appendf(nil, "lim-batch-%02d", i)})
		if !bytes.Equal(r.Value(b("cf2"), b("big")), value) {
			t.Errorf("row %d: read back %d bytes, want %d", i, len(r.Value(b("cf2"), b("big"))), len(value))
		}
	}
}
