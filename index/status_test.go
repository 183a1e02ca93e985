package index

import (
	"bytes"
	"testing"

	"github.com/hbkit/hbkit/hbase"
)

// FuzzParseStatus: a status cell read from the cluster never panics the
// reader, and what parses re-encodes to the same bytes.
func FuzzParseStatus(f *testing.F) {
	f.Add(statusValue(statusUnverified, 1700000000000))
	f.Add(statusValue(statusVerified, 0))
	f.Add([]byte("v"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		st, v, ok := parseStatus(b)
		if !ok {
			return
		}
		if got := statusValue(st, v); !bytes.Equal(got, b) {
			t.Fatalf("got %x, want %x", got, b)
		}
	})
}

// FuzzParseEntry: arbitrary cells in an index row never panic the reader.
func FuzzParseEntry(f *testing.F) {
	f.Add([]byte("5202403050123456789abcdef"), []byte("_s"), statusValue(statusVerified, 5), []byte("row"), []byte("x"))
	f.Fuzz(func(t *testing.T, key, q1, v1, q2, v2 []byte) {
		if len(key) == 0 {
			return
		}
		s := &ixState[struct{}]{fam: "cf", rowQ: "row"}
		r := &hbase.Result{Cells: []hbase.Cell{
			{Row: key, Family: []byte("cf"), Qualifier: q1, Value: v1, Type: hbase.CellTypePut, Timestamp: 3},
			{Row: key, Family: []byte("cf"), Qualifier: q2, Value: v2, Type: hbase.CellTypePut, Timestamp: 4},
		}}
		e := s.parseEntry(r)
		if !bytes.Equal(e.key, key) || e.maxTS != 4 {
			t.Fatalf("entry %+v", e)
		}
		if e.status == 0 && e.version != e.maxTS {
			t.Fatalf("entry without status has version %d", e.version)
		}
	})
}
