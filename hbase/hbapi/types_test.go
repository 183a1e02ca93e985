package hbapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestResultHelpers(t *testing.T) {
	r := &Result{Cells: []Cell{
		{Row: []byte("r"), Family: []byte("a"), Qualifier: []byte("q"), Timestamp: 20, Type: CellTypePut, Value: []byte("new")},
		{Row: []byte("r"), Family: []byte("a"), Qualifier: []byte("q"), Timestamp: 10, Type: CellTypePut, Value: []byte("old")},
		{Row: []byte("r"), Family: []byte("b"), Qualifier: []byte(""), Timestamp: 5, Type: CellTypePut},
	}}
	if got := string(r.Row()); got != "r" {
		t.Errorf("Row() = %q, want r", got)
	}
	if r.Empty() {
		t.Error("Empty() = true")
	}
	if got := string(r.Value([]byte("a"), []byte("q"))); got != "new" {
		t.Errorf("Value(a:q) = %q, want new", got)
	}
	if got := r.Value([]byte("b"), nil); got == nil || len(got) != 0 {
		t.Errorf("Value(b:) = %#v, want empty non-nil", got)
	}
	if got := r.Value([]byte("x"), []byte("q")); got != nil {
		t.Errorf("Value(x:q) = %q, want nil", got)
	}
	if v := r.Versions([]byte("a"), []byte("q")); len(v) != 2 || v[0].Timestamp != 20 || v[1].Timestamp != 10 {
		t.Errorf("Versions(a:q) = %+v", v)
	}
	fams := r.Families()
	if string(fams["a"]["q"]) != "new" || len(fams["b"]) != 1 {
		t.Errorf("Families() = %q", fams)
	}
	var empty *Result
	if !empty.Empty() || empty.Row() != nil || empty.Value([]byte("a"), nil) != nil {
		t.Error("nil Result helpers misbehave")
	}
}

func TestCompareOp(t *testing.T) {
	tests := []struct {
		op   CompareOp
		cmp  int
		want bool
	}{
		{CompareEqual, 0, true}, {CompareEqual, 1, false},
		{CompareNotEqual, -1, true}, {CompareNotEqual, 0, false},
		{CompareLess, -1, true}, {CompareLess, 0, false},
		{CompareLessOrEqual, 0, true}, {CompareLessOrEqual, 1, false},
		{CompareGreater, 1, true}, {CompareGreater, 0, false},
		{CompareGreaterOrEqual, 0, true}, {CompareGreaterOrEqual, -1, false},
		{CompareNoOp, 0, false},
	}
	for _, tc := range tests {
		if got := tc.op.Matches(tc.cmp); got != tc.want {
			t.Errorf("%v.Matches(%d) = %v, want %v", tc.op, tc.cmp, got, tc.want)
		}
		// a op b == b op.Reverse() a
		if got := tc.op.Reverse().Matches(-tc.cmp); got != tc.want && tc.op != CompareNoOp {
			t.Errorf("%v.Reverse().Matches(%d) = %v, want %v", tc.op, -tc.cmp, got, tc.want)
		}
	}
}

func TestComparators(t *testing.T) {
	tests := []struct {
		name   string
		c      Comparator
		stored string
		want   int
	}{
		{"binary equal", &BinaryComparator{Value: []byte("abc")}, "abc", 0},
		{"binary less", &BinaryComparator{Value: []byte("abd")}, "abc", -1},
		{"binary greater", &BinaryComparator{Value: []byte("ab")}, "abc", 1},
		{"prefix equal", &BinaryPrefixComparator{Prefix: []byte("ab")}, "abc", 0},
		{"prefix short", &BinaryPrefixComparator{Prefix: []byte("abc")}, "ab", -1},
		{"substring", &SubstringComparator{Substr: "BC"}, "abcd", 0},
		{"substring miss", &SubstringComparator{Substr: "x"}, "abcd", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Compare([]byte(tc.stored)); sign(got) != tc.want {
				t.Errorf("Compare(%q) = %d, want sign %d", tc.stored, got, tc.want)
			}
		})
	}
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

func TestRowRangeContains(t *testing.T) {
	r := RowRange{Start: []byte("b"), StartInclusive: true, Stop: []byte("d")}
	for row, want := range map[string]bool{"a": false, "b": true, "c": true, "d": false, "e": false} {
		if got := r.Contains([]byte(row)); got != want {
			t.Errorf("Contains(%q) = %v, want %v", row, got, want)
		}
	}
	open := RowRange{}
	if !open.Contains([]byte("zzz")) {
		t.Error("unbounded range does not contain zzz")
	}
}

type retryErr bool

func (e retryErr) Error() string   { return fmt.Sprintf("retry=%v", bool(e)) }
func (e retryErr) Retryable() bool { return bool(e) }

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("x"), false},
		{"sentinel", ErrTableNotFound, false},
		{"retryable", fmt.Errorf("wrapped: %w", retryErr(true)), true},
		{"not retryable", retryErr(false), false},
		{"canceled", context.Canceled, false},
		{"deadline wrapping retryable", fmt.Errorf("%w: %w", context.DeadlineExceeded, retryErr(true)), false},
		{"batch all retryable", &BatchError{Failed: []ActionError{{Index: 0, Err: retryErr(true)}, {Index: 2, Err: retryErr(true)}}}, true},
		{"batch mixed", &BatchError{Failed: []ActionError{{Index: 0, Err: retryErr(true)}, {Index: 1, Err: ErrNoSuchFamily}}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsRetryable(tc.err); got != tc.want {
				t.Errorf("IsRetryable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestBatchError(t *testing.T) {
	be := &BatchError{Failed: []ActionError{
		{Index: 1, Action: &Put{}, Err: ErrNoSuchFamily},
		{Index: 3, Action: &Get{}, Err: ErrTableNotFound},
	}}
	var err error = fmt.Errorf("dao: save: %w", be)
	if !errors.Is(err, ErrNoSuchFamily) || !errors.Is(err, ErrTableNotFound) {
		t.Errorf("errors.Is does not see the action errors of %v", err)
	}
	var got *BatchError
	if !errors.As(err, &got) || len(got.Failed) != 2 {
		t.Fatalf("errors.As(*BatchError) failed for %v", err)
	}
	want := "hbase: batch: 2 actions failed; first: action 1 (put): hbase: no such column family"
	if be.Error() != want {
		t.Errorf("Error() = %q, want %q", be.Error(), want)
	}
}

// sliceScanner is a Scanner over fixed results, for testing All.
type sliceScanner struct {
	rows   []*Result
	i      int
	err    error
	closed int
}

func (s *sliceScanner) Next() bool {
	if s.i >= len(s.rows) {
		return false
	}
	s.i++
	return true
}
func (s *sliceScanner) Result() *Result { return s.rows[s.i-1] }
func (s *sliceScanner) Err() error      { return s.err }
func (s *sliceScanner) Close() error    { s.closed++; return nil }

func TestAll(t *testing.T) {
	rows := []*Result{{Cells: []Cell{{Row: []byte("a")}}}, {Cells: []Cell{{Row: []byte("b")}}}}
	t.Run("full", func(t *testing.T) {
		s := &sliceScanner{rows: rows}
		var got []string
		for r, err := range All(context.Background(), s) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(r.Row()))
		}
		if fmt.Sprint(got) != "[a b]" || s.closed == 0 {
			t.Errorf("got %v closed=%d", got, s.closed)
		}
	})
	t.Run("break", func(t *testing.T) {
		s := &sliceScanner{rows: rows}
		for range All(context.Background(), s) {
			break
		}
		if s.closed == 0 {
			t.Error("scanner not closed after break")
		}
	})
	t.Run("error", func(t *testing.T) {
		s := &sliceScanner{rows: rows[:1], err: io.ErrUnexpectedEOF}
		var errs []error
		n := 0
		for r, err := range All(context.Background(), s) {
			if err != nil {
				errs = append(errs, err)
				if r != nil {
					t.Error("non-nil result with error")
				}
				continue
			}
			n++
		}
		if n != 1 || len(errs) != 1 || !errors.Is(errs[0], io.ErrUnexpectedEOF) {
			t.Errorf("n=%d errs=%v", n, errs)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := &sliceScanner{rows: rows}
		for r, err := range All(ctx, s) {
			if !errors.Is(err, context.Canceled) || r != nil {
				t.Errorf("got %v, %v; want context.Canceled", r, err)
			}
		}
	})
}

func TestPutColumnValuesSorted(t *testing.T) {
	p := &Put{Values: map[string]map[string][]byte{
		"b": {"z": []byte("1"), "a": []byte("2")},
		"a": {"m": []byte("3")},
	}}
	var got []string
	for _, cv := range p.ColumnValues() {
		got = append(got, string(cv.Family)+":"+string(cv.Qualifier)+"="+string(cv.Value))
	}
	if fmt.Sprint(got) != "[a:m=3 b:a=2 b:z=1]" {
		t.Errorf("ColumnValues() = %v", got)
	}
	inc := &Increment{Deltas: map[string]map[string]int64{"f": {"y": 2, "x": -1}}}
	d := inc.ColumnDeltas()
	if len(d) != 2 || string(d[0].Qualifier) != "x" || d[0].Delta != -1 {
		t.Errorf("ColumnDeltas() = %+v", d)
	}
}
