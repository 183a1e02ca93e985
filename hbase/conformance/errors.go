package conformance

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

func (s *suite) testValidation(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	long := bytes.Repeat([]byte("x"), hbapi.MaxRowLength+1)
	longFam := strings.Repeat("f", hbapi.MaxFamilyLength+1)
	d := s.h.Data
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"put empty row", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Values: vals("cf", "q", "v")}) }, hbapi.ErrEmptyRow},
		{"put long row", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: long, Values: vals("cf", "q", "v")}) }, hbapi.ErrRowTooLong},
		{"put empty family", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: vals("", "q", "v")}) }, hbapi.ErrEmptyFamily},
		{"put long family", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: vals(longFam, "q", "v")})
		}, hbapi.ErrFamilyTooLong},
		{"put nil value", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: map[string]map[string][]byte{"cf": {"q": nil}}})
		}, hbapi.ErrNilValue},
		{"put negative timestamp", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: vals("cf", "q", "v"), Timestamp: -1})
		}, hbapi.ErrNegativeTimestamp},
		{"put no columns", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1")}) }, hbapi.ErrEmptyMutation},
		{"put empty table", func() error { return d.Put(ctx, &hbapi.Put{Row: b("val-1"), Values: vals("cf", "q", "v")}) }, hbapi.ErrEmptyTableName},
		{"put invalid table", func() error {
			return d.Put(ctx, &hbapi.Put{Table: "bad name", Row: b("val-1"), Values: vals("cf", "q", "v")})
		}, hbapi.ErrInvalidTableName},
		{"put nil", func() error { return d.Put(ctx, nil) }, hbapi.ErrInvalidRequest},
		{"get empty row", func() error { _, err := d.Get(ctx, &hbapi.Get{Table: tbl}); return err }, hbapi.ErrEmptyRow},
		{"get long row", func() error { _, err := d.Get(ctx, &hbapi.Get{Table: tbl, Row: long}); return err }, hbapi.ErrRowTooLong},
		{"get bad time range", func() error {
			_, err := d.Get(ctx, &hbapi.Get{Table: tbl, Row: b("val-1"), TimeRange: &hbapi.TimeRange{From: 10, To: 5}})
			return err
		}, hbapi.ErrInvalidTimeRange},
		{"delete negative timestamp", func() error { return d.Delete(ctx, &hbapi.Delete{Table: tbl, Row: b("val-1"), Timestamp: -2}) }, hbapi.ErrNegativeTimestamp},
		{"delete empty row", func() error { return d.Delete(ctx, &hbapi.Delete{Table: tbl}) }, hbapi.ErrEmptyRow},
		{"increment empty row", func() error {
			_, err := d.Increment(ctx, &hbapi.Increment{Table: tbl, Deltas: map[string]map[string]int64{"cf": {"n": 1}}})
			return err
		}, hbapi.ErrEmptyRow},
		{"append nil value", func() error {
			_, err := d.Append(ctx, &hbapi.Append{Table: tbl, Row: b("val-1"), Values: map[string]map[string][]byte{"cf": {"q": nil}}})
			return err
		}, hbapi.ErrNilValue},
		{"check and mutate other row", func() error {
			_, err := d.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: tbl, Row: b("val-1"), Family: b("cf"), Qualifier: b("q"),
				Mutations: []hbapi.Mutation{&hbapi.Put{Row: b("val-2"), Values: vals("cf", "q", "v")}}})
			return err
		}, hbapi.ErrRowMismatch},
		{"mutate row empty", func() error { return d.MutateRow(ctx, &hbapi.RowMutations{Table: tbl, Row: b("val-1")}) }, hbapi.ErrEmptyMutation},
		{"scan invalid table", func() error { _, err := d.Scan(ctx, &hbapi.Scan{Table: "a:b:c"}); return err }, hbapi.ErrInvalidTableName},
		{"scan long start row", func() error { _, err := d.Scan(ctx, &hbapi.Scan{Table: tbl, StartRow: long}); return err }, hbapi.ErrRowTooLong},
		{"scan negative limit", func() error { _, err := d.Scan(ctx, &hbapi.Scan{Table: tbl, Limit: -1}); return err }, hbapi.ErrInvalidRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			wantErr(t, "call", err, tc.want)
			var ie *hbapi.InvalidRequestError
			if err != nil && !errors.As(err, &ie) {
				t.Errorf("error %v is not an *hbase.InvalidRequestError", err)
			}
			if hbapi.IsRetryable(err) {
				t.Errorf("validation error %v is retryable", err)
			}
		})
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("val-1")})
	wantCells(t, "nothing written by rejected requests", r, false, "")
}

func (s *suite) testErrors(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	d := s.h.Data
	missing := s.h.NewTableName("conf_missing")
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"put missing family", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("err-1"), Values: vals("nope", "q", "v")})
		}, hbapi.ErrNoSuchFamily},
		{"put one missing family of two", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("err-1"), Values: vals("cf", "q", "v", "nope", "q", "v")})
		}, hbapi.ErrNoSuchFamily},
		{"get missing family", func() error {
			_, err := d.Get(ctx, &hbapi.Get{Table: tbl, Row: b("err-1"), Families: [][]byte{b("nope")}})
			return err
		}, hbapi.ErrNoSuchFamily},
		{"delete missing family", func() error { return d.Delete(ctx, &hbapi.Delete{Table: tbl, Row: b("err-1"), Family: b("nope")}) }, hbapi.ErrNoSuchFamily},
		{"scan missing family", func() error { return scanErr(ctx, d, &hbapi.Scan{Table: tbl, Families: [][]byte{b("nope")}}) }, hbapi.ErrNoSuchFamily},
		{"get missing table", func() error { _, err := d.Get(ctx, &hbapi.Get{Table: missing, Row: b("r")}); return err }, hbapi.ErrTableNotFound},
		{"put missing table", func() error { return d.Put(ctx, &hbapi.Put{Table: missing, Row: b("r"), Values: vals("cf", "q", "v")}) }, hbapi.ErrTableNotFound},
		{"scan missing table", func() error { return scanErr(ctx, d, &hbapi.Scan{Table: missing}) }, hbapi.ErrTableNotFound},
		{"batch missing table", func() error {
			_, err := d.Batch(ctx, []hbapi.Action{&hbapi.Get{Table: missing, Row: b("r")}})
			return err
		}, hbapi.ErrTableNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			wantErr(t, "call", err, tc.want)
			if hbapi.IsRetryable(err) {
				t.Errorf("error %v is retryable", err)
			}
		})
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("err-1")})
	wantCells(t, "nothing written by failed puts", r, false, "")

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := d.Get(canceled, &hbapi.Get{Table: tbl, Row: b("err-1")})
	wantErr(t, "get with a canceled context", err, context.Canceled)
}
