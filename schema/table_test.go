package schema_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"

	"github.com/hbkit/hbkit/keys"
)

// randSMS returns a random valid SMS; mobile and time may be forced.
func randSMS(r *rand.Rand) seeds.SMS {
	var mobile [11]byte
	mobile[0] = '1'
	for i := 1; i < len(mobile); i++ {
		mobile[i] = byte('0' + r.IntN(10))
	}
	accounts := []string{"acme", "billing", "ops", "", "帐户"}
	return seeds.SMS{
		Mobile:    string(mobile[:]),
		SentAt:    time.UnixMilli(r.Int64N(4102444800000)).UTC(), // 1970 .. 2100
		Seq:       r.Uint64N(1 << 16),
		Account:   accounts[r.IntN(len(accounts))],
		Content:   strconv.Itoa(r.Int()),
		Delivered: r.IntN(2) == 0,
	}
}

func mustSMS(t testing.TB) (*Table[seeds.SMS], *Index[seeds.SMS]) {
	t.Helper()
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	ix, ok := tbl.Index(seeds.SMSIndexTableName)
	if !ok {
		t.Fatal("SMSTable has no index sms_index")
	}
	return tbl, ix
}

func TestSMSRoundTrip(t *testing.T) {
	tbl, ix := mustSMS(t)
	r := rand.New(rand.NewPCG(1, 2))
	var row, entry Row
	for i := 0; i < 2000; i++ {
		in := randSMS(r)
		if err := tbl.EncodeRow(&row, &in); err != nil {
			t.Fatalf("EncodeRow(%+v): %v", in, err)
		}
		var out seeds.SMS
		if err := tbl.DecodeRow(row.Key, row.Cells, &out); err != nil {
			t.Fatalf("DecodeRow(%x): %v", row.Key, err)
		}
		if out != in {
			t.Fatalf("data row round trip of key %q (%x):\n got  %+v\n want %+v", row.Key, row.Key, out, in)
		}

		if err := ix.EncodeEntry(&entry, &in); err != nil {
			t.Fatalf("EncodeEntry(%+v): %v", in, err)
		}
		// The entry points back to the data row.
		if _, q, _ := ix.RowKeyColumn(); entry.Cells[0].Qualifier != q || !bytes.Equal(entry.Cells[0].Value, row.Key) {
			t.Fatalf("index entry cell 0 = %s:%x, want %s:%x", entry.Cells[0].Qualifier, entry.Cells[0].Value, q, row.Key)
		}
		var fromIndex seeds.SMS
		if err := ix.DecodeEntry(entry.Key, entry.Cells, &fromIndex); err != nil {
			t.Fatalf("DecodeEntry(%x): %v", entry.Key, err)
		}
		// The index carries the key fields (through the row pointer) and
		// the delivered flag, not account or content.
		want := seeds.SMS{Mobile: in.Mobile, SentAt: in.SentAt, Seq: in.Seq, Delivered: in.Delivered}
		if fromIndex != want {
			t.Fatalf("index entry round trip of key %q:\n got  %+v\n want %+v", entry.Key, fromIndex, want)
		}
	}
}

// TestEncodeRecordSameRows holds EncodeRecord, which copies the data row
// key into the entry instead of encoding it twice, to EncodeRow and
// EncodeEntry: the same keys and cells, record after record through one
// reused Record.
func TestEncodeRecordSameRows(t *testing.T) {
	tbl, ix := mustSMS(t)
	r := rand.New(rand.NewPCG(3, 4))
	var rec Record
	var row, entry Row
	sameRow := func(what string, got, want *Row) {
		t.Helper()
		if !bytes.Equal(got.Key, want.Key) {
			t.Fatalf("%s key = %x, want %x", what, got.Key, want.Key)
		}
		if len(got.Cells) != len(want.Cells) {
			t.Fatalf("%s of key %x: %d cells, want %d", what, got.Key, len(got.Cells), len(want.Cells))
		}
		for i, c := range got.Cells {
			w := want.Cells[i]
			if c.Family != w.Family || c.Qualifier != w.Qualifier || !bytes.Equal(c.Value, w.Value) {
				t.Fatalf("%s of key %x: cell %d = %s:%s=%x, want %s:%s=%x", what, got.Key, i, c.Family, c.Qualifier, c.Value, w.Family, w.Qualifier, w.Value)
			}
		}
	}
	for i := 0; i < 500; i++ {
		in := randSMS(r)
		if in.Account == "" {
			in.Account = "acme" // the index is keyed on it: EncodeRecord requires it
		}
		if err := tbl.EncodeRecord(&rec, &in); err != nil {
			t.Fatalf("EncodeRecord(%+v): %v", in, err)
		}
		if err := tbl.EncodeRow(&row, &in); err != nil {
			t.Fatalf("EncodeRow(%+v): %v", in, err)
		}
		if err := ix.EncodeEntry(&entry, &in); err != nil {
			t.Fatalf("EncodeEntry(%+v): %v", in, err)
		}
		if len(rec.Entries) != 1 {
			t.Fatalf("EncodeRecord: %d entries, want 1", len(rec.Entries))
		}
		sameRow("data row", &rec.Data, &row)
		sameRow("entry", &rec.Entries[0], &entry)
	}
}

// TestSMSDataKeyOrder checks the documented order of the data key: for one
// mobile, newer messages sort first; the same instant sorts by Seq.
func TestSMSDataKeyOrder(t *testing.T) {
	tbl, _ := mustSMS(t)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		a := randSMS(r)
		b := a
		b.SentAt = time.UnixMilli(r.Int64N(4102444800000)).UTC()
		b.Seq = r.Uint64N(1 << 16)
		ka, err := tbl.AppendKey(nil, &a)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := tbl.AppendKey(nil, &b)
		if err != nil {
			t.Fatal(err)
		}
		want := -a.SentAt.Compare(b.SentAt) // newest first
		if want == 0 {
			want = cmpUint(a.Seq, b.Seq)
		}
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("Compare(key(%s #%d), key(%s #%d)) = %d, want %d\n %q\n %q",
				a.SentAt.Format(time.RFC3339Nano), a.Seq, b.SentAt.Format(time.RFC3339Nano), b.Seq, got, want, ka, kb)
		}
	}
}

// TestSMSIndexKeyOrder: within one bucket, day, account and mobile, the
// latest message of the day sorts first; days sort ascending.
func TestSMSIndexKeyOrder(t *testing.T) {
	_, ix := mustSMS(t)
	r := rand.New(rand.NewPCG(5, 6))
	day := time.Date(2017, 12, 12, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 2000; i++ {
		a := randSMS(r)
		b := a
		a.SentAt = day.Add(time.Duration(r.Int64N(int64(48*time.Hour))) / time.Millisecond * time.Millisecond)
		b.SentAt = day.Add(time.Duration(r.Int64N(int64(48*time.Hour))) / time.Millisecond * time.Millisecond)
		b.Seq = a.Seq
		ka, err := ix.AppendKey(nil, &a)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := ix.AppendKey(nil, &b)
		if err != nil {
			t.Fatal(err)
		}
		var want int
		ya, ma, da := a.SentAt.Date()
		yb, mb, db := b.SentAt.Date()
		if ya != yb || ma != mb || da != db {
			want = a.SentAt.Compare(b.SentAt) // different days: ascending
		} else {
			want = -a.SentAt.Compare(b.SentAt) // same day: latest first
		}
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("Compare(index(%s), index(%s)) = %d, want %d\n %q\n %q",
				a.SentAt.Format(time.RFC3339Nano), b.SentAt.Format(time.RFC3339Nano), got, want, ka, kb)
		}
	}
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestLogDataRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	hosts := []string{"a", "myserver1.mycompany.com", "web\x00zero", "\xff\xfe", "h"}
	events := []string{"e1", "com.package1.subpackage2.subsubpackage3.ImportantService", "", "x\x00\x01"}
	for _, build := range []func() (*Table[seeds.LogEvent], error){seeds.LogDataBucketed, seeds.LogDataByHost, seeds.LogDataMD5} {
		tbl, err := build()
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tbl.Name().String(), func(t *testing.T) {
			var row Row
			for i := 0; i < 1000; i++ {
				in := seeds.LogEvent{
					Host:    hosts[r.IntN(len(hosts))],
					At:      time.UnixMilli(r.Int64N(1<<42) - 1<<40).UTC(),
					Event:   events[r.IntN(len(events))],
					Message: strconv.Itoa(r.IntN(100)),
				}
				if tbl.Name().String() == seeds.LogDataMD5Name && (in.Host == "" || in.Event == "") {
					continue // empty strings write no column cell and cannot come back from a hash
				}
				if err := tbl.EncodeRow(&row, &in); err != nil {
					t.Fatalf("EncodeRow(%+v): %v", in, err)
				}
				var out seeds.LogEvent
				if err := tbl.DecodeRow(row.Key, row.Cells, &out); err != nil {
					t.Fatalf("DecodeRow(%q): %v", row.Key, err)
				}
				if out != in {
					t.Fatalf("round trip of %q:\n got  %+v\n want %+v", row.Key, out, in)
				}
			}
		})
	}
}

// TestLogDataByHostOrder: keys of one host sort by time, ascending.
func TestLogDataByHostOrder(t *testing.T) {
	tbl, err := seeds.LogDataByHost()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 1000; i++ {
		a := seeds.LogEvent{Host: "web-1", At: time.UnixMilli(r.Int64N(1<<42) - 1<<40), Event: "e"}
		b := seeds.LogEvent{Host: "web-1", At: time.UnixMilli(r.Int64N(1<<42) - 1<<40), Event: "e"}
		ka, _ := tbl.AppendKey(nil, &a)
		kb, _ := tbl.AppendKey(nil, &b)
		if got, want := bytes.Compare(ka, kb), a.At.Compare(b.At); got != want {
			t.Fatalf("Compare(%q, %q) = %d, want %d", ka, kb, got, want)
		}
	}
}

func TestCustomerOrderRoundTripAndOrder(t *testing.T) {
	tbl, err := seeds.CustomerOrderTable()
	if err != nil {
		t.Fatal(err)
	}
	recs := []seeds.CustomerOrder{
		{CustomerID: "C1", Type: seeds.CustomerRecord, Name: "Ada", City: "London", Phone: "1"},
		{CustomerID: "C1", Type: seeds.OrderRecord, OrderID: 7, SalesDate: time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)},
		{CustomerID: "C1", Type: seeds.OrderRecord, OrderID: 8},
		{CustomerID: "C1", Type: seeds.LineRecord, OrderID: 7, Line: 1, Item: "book", Quantity: 3, ShipTo: "x"},
		{CustomerID: "C1", Type: seeds.LineRecord, OrderID: 7, Line: 2, Item: "pen", Quantity: 1},
		{CustomerID: "C1", Type: seeds.LineRecord, OrderID: 8, Line: 1, Item: "ink"},
	}
	var prev []byte
	var row Row
	for i, in := range recs {
		if err := tbl.EncodeRow(&row, &in); err != nil {
			t.Fatal(err)
		}
		var out seeds.CustomerOrder
		if err := tbl.DecodeRow(row.Key, row.Cells, &out); err != nil {
			t.Fatal(err)
		}
		if out != in {
			t.Errorf("round trip of %q:\n got  %+v\n want %+v", row.Key, out, in)
		}
		// One customer's rows: customer, then orders, then lines, each by id.
		if i > 0 && bytes.Compare(prev, row.Key) >= 0 {
			t.Errorf("key %d %q does not sort after %q", i, row.Key, prev)
		}
		prev = bytes.Clone(row.Key)
	}
	// Customer-level columns are only written for the types that have them.
	in := seeds.CustomerOrder{CustomerID: "C1", Type: seeds.OrderRecord, OrderID: 9, Quantity: 5}
	if err := tbl.EncodeRow(&row, &in); err != nil {
		t.Fatal(err)
	}
	if len(row.Cells) != 0 {
		t.Errorf("order record wrote cells %+v, want none (quantity belongs to lines)", row.Cells)
	}
}

// assertSchemaError checks the kind and field of a *Error.
func assertSchemaError(t *testing.T, err error, kind error, field string) *Error {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v, want %v", err, kind)
	}
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error %T is not a *Error", err)
	}
	if se.Field != field {
		t.Errorf("Field = %q, want %q (error: %v)", se.Field, field, err)
	}
	if se.Reason == "" {
		t.Errorf("no Reason in %v", err)
	}
	return se
}

func TestBadKeyInput(t *testing.T) {
	tbl, ix := mustSMS(t)
	tests := []struct {
		name    string
		in      seeds.SMS
		segment string
		keysErr error
	}{
		{"short mobile", seeds.SMS{Mobile: "1381234567", SentAt: goldenTime}, "mobile", keys.ErrWidth},
		{"letter in mobile", seeds.SMS{Mobile: "1381234567x", SentAt: goldenTime}, "mobile", keys.ErrInvalidValue},
		{"zero time", seeds.SMS{Mobile: "13812345678"}, "sent", keys.ErrOutOfRange},
		{"seq too wide", seeds.SMS{Mobile: "13812345678", SentAt: goldenTime, Seq: 1 << 16}, "unique", keys.ErrWidth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Row
			err := tbl.EncodeRow(&r, &tt.in)
			se := assertSchemaError(t, err, ErrInvalidKey, tt.segment)
			if se.Table != seeds.SMSTableName {
				t.Errorf("Table = %q, want %q", se.Table, seeds.SMSTableName)
			}
			if !errors.Is(err, tt.keysErr) {
				t.Errorf("error %v does not wrap %v", err, tt.keysErr)
			}
			var ke *keys.Error
			if !errors.As(err, &ke) || ke.Segment != tt.segment {
				t.Errorf("errors.As *keys.Error = %+v, want segment %q", ke, tt.segment)
			}
			if len(r.Key) != 0 || len(r.Cells) != 0 {
				t.Errorf("row not empty after error: %+v", r)
			}
			// The index entry encodes the data row key too and fails the same way.
			if err := ix.EncodeEntry(&r, &tt.in); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("EncodeEntry error = %v, want ErrInvalidKey", err)
			}
		})
	}
	// Decoding garbage names the segment as well.
	var out seeds.SMS
	err := tbl.DecodeKey([]byte("8765432183x"), &out)
	assertSchemaError(t, err, ErrInvalidKey, "mobile")
}

// testRec is a small record for declaration tests.
type testRec struct {
	ID   string
	Name string
	Age  int64
}

func testKey(t *testing.T) *keys.Layout[testRec] {
	t.Helper()
	l, err := keys.NewLayout(
		keys.MD5Hex("id_md5", 2, func(r *testRec) string { return r.ID }),
		keys.String("id", func(r *testRec) string { return r.ID }, func(r *testRec, v string) { r.ID = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func testSpec(t *testing.T) Spec[testRec] {
	return Spec[testRec]{
		Name:     "ns:people",
		Families: []Family{{Name: "f"}},
		Key:      testKey(t),
		Columns: []Column[testRec]{
			StringColumn("name", "f", "n", func(r *testRec) string { return r.Name }, func(r *testRec, v string) { r.Name = v }),
			Int64Column("age", "f", "a", func(r *testRec) int64 { return r.Age }, func(r *testRec, v int64) { r.Age = v }),
		},
	}
}

func TestNewErrors(t *testing.T) {
	byName, err := keys.NewLayout(
		keys.String("name", func(r *testRec) string { return r.Name }, nil),
		keys.String("nickname", func(r *testRec) string { return r.Name }, nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		modify func(*Spec[testRec])
		kind   error
		field  string
	}{
		{"bad table name", func(s *Spec[testRec]) { s.Name = "ns:-people" }, ErrInvalidName, "qualifier"},
		{"bad namespace", func(s *Spec[testRec]) { s.Name = "n-s:people" }, ErrInvalidName, "namespace"},
		{"no families", func(s *Spec[testRec]) { s.Families = nil }, ErrInvalidTable, "families"},
		{"duplicate family", func(s *Spec[testRec]) { s.Families = []Family{{Name: "f"}, {Name: "f"}} }, ErrInvalidTable, "name"},
		{"family too long", func(s *Spec[testRec]) { s.Families = []Family{{Name: string(bytes.Repeat([]byte("x"), 200))}} }, ErrInvalidName, "name"},
		{"family VERSIONS", func(s *Spec[testRec]) { s.Families[0].Versions = -3 }, ErrInvalidOption, "VERSIONS"},
		{"family compression", func(s *Spec[testRec]) { s.Families[0].Compression = "GZIP" }, ErrInvalidOption, "COMPRESSION"},
		{"no key", func(s *Spec[testRec]) { s.Key = nil }, ErrInvalidTable, "key"},
		{"column in unknown family", func(s *Spec[testRec]) { s.Columns[0].Family = "g" }, ErrInvalidTable, "name"},
		{"column named like key field", func(s *Spec[testRec]) { s.Columns[0].Name = "id" }, ErrInvalidTable, "id"},
		{"two columns one cell", func(s *Spec[testRec]) { s.Columns[1].Qualifier = "n" }, ErrInvalidTable, "age"},
		{"column without Set", func(s *Spec[testRec]) { s.Columns[1].Set = nil }, ErrInvalidTable, "age"},
		{"unsorted splits", func(s *Spec[testRec]) { s.Splits.Keys = [][]byte{[]byte("b"), []byte("a")} }, ErrInvalidSplits, "splits"},
		{"splits and regions", func(s *Spec[testRec]) { s.Splits = Splits{Keys: [][]byte{[]byte("a")}, Regions: 4} }, ErrInvalidSplits, "splits"},
		{"regions on a string key", func(s *Spec[testRec]) { s.Key = byName; s.Columns = s.Columns[1:]; s.Splits.Regions = 4 }, ErrInvalidSplits, "splits"},
		{"index on missing field", func(s *Spec[testRec]) {
			s.Indexes = []IndexSpec[testRec]{{Name: "people_by_name", Families: []Family{{Name: "i"}}, Key: byName}}
		}, ErrUnknownField, "index people_by_name: key segment nickname"},
		{"index From missing field", func(s *Spec[testRec]) {
			s.Indexes = []IndexSpec[testRec]{{Name: "people_by_name", Families: []Family{{Name: "i"}}, Key: byName,
				From: map[string]string{"nickname": "alias"}}}
		}, ErrUnknownField, "index people_by_name: key segment nickname"},
		{"index From unknown segment", func(s *Spec[testRec]) {
			s.Indexes = []IndexSpec[testRec]{{Name: "people_by_name", Families: []Family{{Name: "i"}}, Key: byName,
				From: map[string]string{"nickname": "name", "surname": "name"}}}
		}, ErrUnknownField, "index people_by_name: From surname"},
		{"index carries missing column", func(s *Spec[testRec]) {
			s.Indexes = []IndexSpec[testRec]{{Name: "people_by_name", Families: []Family{{Name: "i"}}, Key: byName,
				From: map[string]string{"nickname": "name"}, Columns: []string{"email"}}}
		}, ErrUnknownField, "index people_by_name: column email"},
		{"index bad name", func(s *Spec[testRec]) {
			s.Indexes = []IndexSpec[testRec]{{Name: ".idx", Families: []Family{{Name: "i"}}, Key: byName}}
		}, ErrInvalidName, "index .idx: qualifier"},
		{"index same name as table", func(s *Spec[testRec]) {
			s.Indexes = []IndexSpec[testRec]{{Name: "ns:people", Families: []Family{{Name: "i"}}, Key: byName,
				From: map[string]string{"nickname": "name"}}}
		}, ErrInvalidTable, "index ns:people"},
		{"index family option", func(s *Spec[testRec]) {
			s.Indexes = []IndexSpec[testRec]{{Name: "idx", Families: []Family{{Name: "i", BlockSize: 1}}, Key: byName}}
		}, ErrInvalidOption, "index idx: BLOCKSIZE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := testSpec(t)
			tt.modify(&spec)
			tbl, err := New(spec)
			if tbl != nil {
				t.Errorf("New returned a table with error %v", err)
			}
			se := assertSchemaError(t, err, tt.kind, tt.field)
			if se.Table == "" {
				t.Errorf("error does not name the table: %v", err)
			}
		})
	}
}

func TestIndexOnTestRec(t *testing.T) {
	byName, err := keys.NewLayout(
		keys.HashBucket("bucket", 4, func(r *testRec) string { return r.Name }, nil),
		keys.String("name", func(r *testRec) string { return r.Name }, func(r *testRec, v string) { r.Name = v }),
		keys.String("id", func(r *testRec) string { return r.ID }, func(r *testRec, v string) { r.ID = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	spec := testSpec(t)
	spec.Indexes = []IndexSpec[testRec]{{
		Name: "ns:people_by_name", Families: []Family{{Name: "i"}}, Key: byName,
		From: map[string]string{"bucket": "name"}, Splits: Splits{Regions: 4}, Columns: []string{"age"},
	}}
	tbl, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	ix, ok := tbl.Index("ns:people_by_name")
	if !ok {
		t.Fatal("index not found")
	}
	if got := QuoteKeys(ix.SplitKeys()); got != `["1" "2" "3"]` {
		t.Errorf("index splits = %s", got)
	}
	if src, ok := ix.Source("bucket"); !ok || src != "name" {
		t.Errorf("Source(bucket) = %q, %t", src, ok)
	}
	in := testRec{ID: "p1", Name: "Ada", Age: 36}
	var r Row
	if err := ix.EncodeEntry(&r, &in); err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 1 || r.Cells[0].Family != "i" || r.Cells[0].Qualifier != "a" {
		t.Fatalf("entry cells = %+v, want one cell i:a", r.Cells)
	}
	var out testRec
	if err := ix.DecodeEntry(r.Key, r.Cells, &out); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Errorf("DecodeEntry = %+v, want %+v", out, in)
	}
	// A cell with a bad value names the column.
	err = ix.DecodeEntry(r.Key, []Cell{{Family: "i", Qualifier: "a", Value: []byte{1}}}, &out)
	assertSchemaError(t, err, ErrInvalidValue, "age")
}

func TestSeedSplits(t *testing.T) {
	tbl, ix := mustSMS(t)
	// Seed 000, verbatim.
	if got, want := QuoteKeys(tbl.SplitKeys()), `["05" "10" "15" "20" "25" "30" "35" "40" "45" "50" "55" "60" "65" "70" "75" "80" "85" "90" "95"]`; got != want {
		t.Errorf("sms splits = %s, want %s", got, want)
	}
	if got, want := QuoteKeys(ix.SplitKeys()), `["1" "2" "3" "4" "5" "6" "7" "8" "9"]`; got != want {
		t.Errorf("sms_index splits = %s, want %s", got, want)
	}
	// Every data key lands in the region its two leading digits say.
	r := rand.New(rand.NewPCG(11, 12))
	counts := make([]int, len(tbl.SplitKeys())+1)
	for i := 0; i < 20000; i++ {
		in := randSMS(r)
		k, err := tbl.AppendKey(nil, &in)
		if err != nil {
			t.Fatal(err)
		}
		region := 0
		for _, s := range tbl.SplitKeys() {
			if bytes.Compare(k, s) >= 0 {
				region++
			}
		}
		counts[region]++
	}
	for i, c := range counts {
		if c < 20000/20/2 {
			t.Errorf("region %d got %d of 20000 random keys, want about 1000: %v", i, c, counts)
		}
	}
}

func TestTableAccessorsCopy(t *testing.T) {
	tbl, _ := mustSMS(t)
	s := tbl.SplitKeys()
	s[0][0] = 'x'
	f := tbl.Families()
	f[0].Name = "changed"
	if tbl.SplitKeys()[0][0] == 'x' || tbl.Families()[0].Name == "changed" {
		t.Error("accessors return the table's own slices")
	}
	if got, want := tbl.Fields(), []string{"mobile", "sent", "unique", "account", "content", "delivered"}; !slicesEqual(got, want) {
		t.Errorf("Fields() = %v, want %v", got, want)
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestKeyPartsErrors(t *testing.T) {
	tbl, _ := mustSMS(t)
	k, err := tbl.AppendKey(nil, &benchSMS)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := tbl.KeyParts(k)
	if err != nil || len(parts) != 3 || parts[0].Segment != "mobile" || string(parts[0].Bytes) != "87654321831" {
		t.Fatalf("KeyParts(%q) = %v, %v", k, parts, err)
	}
	_, err = tbl.KeyParts(append(k, 'x'))
	if !errors.Is(err, ErrInvalidKey) || !errors.Is(err, keys.ErrTrailingBytes) {
		t.Errorf("KeyParts with a trailing byte: error = %v, want ErrInvalidKey wrapping keys.ErrTrailingBytes", err)
	}
	_, err = tbl.KeyParts(k[:20])
	assertSchemaError(t, err, ErrInvalidKey, "sent")
}

// TestEncodeRowEmptyFirstCell: a column may write a cell with an empty
// value; into a fresh Row that value must still be non-nil, or HBase (and
// the hbase client's validation) rejects the Put.
func TestEncodeRowEmptyFirstCell(t *testing.T) {
	spec := testSpec(t)
	spec.Columns = append([]Column[testRec]{{
		Name: "flag", Family: "f", Qualifier: "p",
		Append: func(dst []byte, _ *testRec) ([]byte, bool) { return dst, true },
		Set:    func(*testRec, []byte) error { return nil },
	}}, spec.Columns...)
	tbl, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	var r Row
	if err := tbl.EncodeRow(&r, &testRec{ID: "a", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) == 0 || r.Cells[0].Qualifier != "p" || r.Cells[0].Value == nil || len(r.Cells[0].Value) != 0 {
		t.Fatalf("cells %+v, want a first cell p with an empty, non-nil value", r.Cells)
	}
	if v := r.Values()["f"]["p"]; v == nil {
		t.Fatal("Values() has a nil value for the empty cell")
	}
}

func TestRowValues(t *testing.T) {
	r := &Row{Key: []byte("k"), Cells: []Cell{
		{Family: "cf", Qualifier: "a", Value: []byte("1")},
		{Family: "cf", Qualifier: "b", Value: []byte("2")},
		{Family: "x", Qualifier: "a", Value: []byte{}},
	}}
	got := r.Values()
	if len(got) != 2 || string(got["cf"]["a"]) != "1" || string(got["cf"]["b"]) != "2" || got["x"]["a"] == nil || len(got["x"]["a"]) != 0 {
		t.Fatalf("Values() = %q", got)
	}
	if len((&Row{}).Values()) != 0 {
		t.Fatal("an empty row has values")
	}
	// Families interleaved: each cell still lands in its own family.
	mixed := &Row{Cells: []Cell{
		{Family: "cf", Qualifier: "a", Value: []byte("1")},
		{Family: "x", Qualifier: "a", Value: []byte("2")},
		{Family: "cf", Qualifier: "b", Value: []byte("3")},
		{Family: "x", Qualifier: "b", Value: []byte("4")},
	}}
	got = mixed.Values()
	if len(got) != 2 || len(got["cf"]) != 2 || len(got["x"]) != 2 ||
		string(got["cf"]["a"]) != "1" || string(got["x"]["a"]) != "2" || string(got["cf"]["b"]) != "3" || string(got["x"]["b"]) != "4" {
		t.Fatalf("Values() of interleaved families = %q", got)
	}
}
