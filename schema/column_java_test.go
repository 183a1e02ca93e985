package schema

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"testing"
	"time"
)

// javaRec holds one field of each type a Java application writes with
// Bytes.toBytes.
type javaRec struct {
	S string
	L int64
	I int32
	H int16
	D float64
	B bool
	T time.Time
}

// The value columns write the bytes of HBase's Bytes.toBytes for the same
// value (the hex below is what Bytes.toBytes returns on a JVM), and read
// them back.
func TestColumnsWriteJavaBytes(t *testing.T) {
	str := StringColumn("s", "f", "s", func(r *javaRec) string { return r.S }, func(r *javaRec, v string) { r.S = v })
	long := Int64Column("l", "f", "l", func(r *javaRec) int64 { return r.L }, func(r *javaRec, v int64) { r.L = v })
	integer := Int32Column("i", "f", "i", func(r *javaRec) int32 { return r.I }, func(r *javaRec, v int32) { r.I = v })
	short := Int16Column("h", "f", "h", func(r *javaRec) int16 { return r.H }, func(r *javaRec, v int16) { r.H = v })
	double := Float64Column("d", "f", "d", func(r *javaRec) float64 { return r.D }, func(r *javaRec, v float64) { r.D = v })
	boolean := BoolColumn("b", "f", "b", func(r *javaRec) bool { return r.B }, func(r *javaRec, v bool) { r.B = v })
	ts := TimeColumn("t", "f", "t", func(r *javaRec) time.Time { return r.T }, func(r *javaRec, v time.Time) { r.T = v })
	tests := []struct {
		name string
		col  Column[javaRec]
		rec  javaRec
		java string // hex of Bytes.toBytes(value)
	}{
		{"String utf-8", str, javaRec{S: "用户 7"}, "e794a8e688b72037"},
		{"long -2", long, javaRec{L: -2}, "fffffffffffffffe"},
		{"long MIN_VALUE", long, javaRec{L: math.MinInt64}, "8000000000000000"},
		{"long 0", long, javaRec{}, "0000000000000000"},
		{"int -500", integer, javaRec{I: -500}, "fffffe0c"},
		{"int MAX_VALUE", integer, javaRec{I: math.MaxInt32}, "7fffffff"},
		{"int MIN_VALUE", integer, javaRec{I: math.MinInt32}, "80000000"},
		{"int 0", integer, javaRec{}, "00000000"},
		{"short -32768", short, javaRec{H: math.MinInt16}, "8000"},
		{"short 4465", short, javaRec{H: 4465}, "1171"},
		{"short -1", short, javaRec{H: -1}, "ffff"},
		{"double 1.5", double, javaRec{D: 1.5}, "3ff8000000000000"},
		{"boolean true", boolean, javaRec{B: true}, "ff"},
		{"boolean false", boolean, javaRec{}, "00"},
		{"long millis", ts, javaRec{T: time.UnixMilli(1709596800000).UTC()}, "0000018e0be8f400"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.col.Append(nil, &tc.rec)
			if !ok {
				t.Fatalf("Append wrote no cell")
			}
			want, err := hex.DecodeString(tc.java)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Append = %x, want %x (Bytes.toBytes)", got, want)
			}
			var back javaRec
			if err := tc.col.Set(&back, want); err != nil {
				t.Fatalf("Set(%x): %v", want, err)
			}
			again, _ := tc.col.Append(nil, &back)
			if !bytes.Equal(again, want) {
				t.Fatalf("round trip: %+v encodes to %x, want %x", back, again, want)
			}
		})
	}
}

// A Java int or short cell of another width is an *Error of kind
// ErrInvalidValue naming the column, and leaves the field alone.
func TestJavaIntColumnsRefuseOtherWidths(t *testing.T) {
	integer := Int32Column("level", "f", "i", func(r *javaRec) int32 { return r.I }, func(r *javaRec, v int32) { r.I = v })
	short := Int16Column("rank", "f", "h", func(r *javaRec) int16 { return r.H }, func(r *javaRec, v int16) { r.H = v })
	tests := []struct {
		name  string
		col   Column[javaRec]
		value []byte
	}{
		{"int from a long", integer, make([]byte, 8)},
		{"int from a short", integer, make([]byte, 2)},
		{"int from nothing", integer, nil},
		{"short from an int", short, make([]byte, 4)},
		{"short from one byte", short, []byte{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := javaRec{I: 9, H: 9}
			err := tc.col.Set(&rec, tc.value)
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, ErrInvalidValue) || se.Field != tc.col.Name {
				t.Fatalf("Set(%x) = %v, want an *Error of kind ErrInvalidValue for %q", tc.value, err, tc.col.Name)
			}
			if rec.I != 9 || rec.H != 9 {
				t.Fatalf("Set(%x) changed the record: %+v", tc.value, rec)
			}
		})
	}
}
