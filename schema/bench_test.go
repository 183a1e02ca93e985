package schema_test

import (
	"testing"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

var benchSMS = seeds.SMS{Mobile: "13812345678", SentAt: goldenTime, Seq: 7, Account: "acme", Content: "hello", Delivered: true}

// BenchmarkSMSKeys encodes the data row key and the index row key of one
// record into reused buffers. Goal: both keys in under 1µs, no allocation.
func BenchmarkSMSKeys(b *testing.B) {
	tbl, ix := mustSMS(b)
	data := make([]byte, 0, 64)
	index := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if data, err = tbl.AppendKey(data[:0], &benchSMS); err != nil {
			b.Fatal(err)
		}
		if index, err = ix.AppendKey(index[:0], &benchSMS); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSMSRowAndEntry encodes the whole data row (key and cells) and
// the whole index entry (key, row pointer and carried cell).
func BenchmarkSMSRowAndEntry(b *testing.B) {
	tbl, ix := mustSMS(b)
	var row, entry Row
	b.ReportAllocs()
	for b.Loop() {
		if err := tbl.EncodeRow(&row, &benchSMS); err != nil {
			b.Fatal(err)
		}
		if err := ix.EncodeEntry(&entry, &benchSMS); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSMSDecodeRow decodes a data row back into a record.
func BenchmarkSMSDecodeRow(b *testing.B) {
	tbl, _ := mustSMS(b)
	var row Row
	if err := tbl.EncodeRow(&row, &benchSMS); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var out seeds.SMS
	for b.Loop() {
		if err := tbl.DecodeRow(row.Key, row.Cells, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSMSEncodeZeroAlloc enforces what the benchmarks show: with reused
// buffers, the record-to-keys and record-to-row paths allocate nothing.
func TestSMSEncodeZeroAlloc(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector adds allocations")
	}
	tbl, ix := mustSMS(t)
	data := make([]byte, 0, 64)
	index := make([]byte, 0, 64)
	var err error
	keysAllocs := testing.AllocsPerRun(200, func() {
		if data, err = tbl.AppendKey(data[:0], &benchSMS); err != nil {
			t.Fatal(err)
		}
		if index, err = ix.AppendKey(index[:0], &benchSMS); err != nil {
			t.Fatal(err)
		}
	})
	if keysAllocs != 0 {
		t.Errorf("data key + index key: %v allocations per record, want 0", keysAllocs)
	}
	var row, entry Row
	rowAllocs := testing.AllocsPerRun(200, func() {
		if err := tbl.EncodeRow(&row, &benchSMS); err != nil {
			t.Fatal(err)
		}
		if err := ix.EncodeEntry(&entry, &benchSMS); err != nil {
			t.Fatal(err)
		}
	})
	if rowAllocs != 0 {
		t.Errorf("EncodeRow + EncodeEntry into reused Rows: %v allocations per record, want 0", rowAllocs)
	}
}

// TestSMSEncodeFreshRecordAllocs bounds what encoding costs into a fresh
// Record, as a store's batch does (one Record per record of the call): a
// Row with no buffers yet gets its key and its cells at their full size at
// once, and the entry copies the data row's key, so that the record costs
// the data row's key, its cells and its value buffer (which grows once,
// from the account to the content), the entries' slice, and the entry's
// key, cells and value buffer.
func TestSMSEncodeFreshRecordAllocs(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector adds allocations")
	}
	tbl, _ := mustSMS(t)
	allocs := testing.AllocsPerRun(200, func() {
		var rec Record
		if err := tbl.EncodeRecord(&rec, &benchSMS); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 8 {
		t.Errorf("EncodeRecord into a fresh Record: %v allocations per record, want at most 8", allocs)
	}
	var rec Record
	if allocs := testing.AllocsPerRun(200, func() { _ = tbl.EncodeRecord(&rec, &benchSMS) }); allocs != 0 {
		t.Errorf("EncodeRecord into a reused Record: %v allocations per record, want 0", allocs)
	}
}
