package schema_test

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"

	"github.com/hbkit/hbkit/keys"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenTable writes, for fixed records, each key readably (segment by
// segment) and in hex, the cells, and the table's split keys.
type goldenWriter struct {
	bytes.Buffer
}

func (w *goldenWriter) header(d Definition) {
	fmt.Fprintf(&w.Buffer, "table %s\n", d.Name().FullName())
	for _, f := range d.Families() {
		fmt.Fprintf(&w.Buffer, "family %s", f.Name)
		for _, a := range f.SortedAttributes() {
			fmt.Fprintf(&w.Buffer, " %s=%s", a.Name, a.Value)
		}
		w.WriteString("\n")
	}
	for _, s := range d.KeySegments() {
		fmt.Fprintf(&w.Buffer, "segment %s kind=%q width=%d order=%s decodable=%t\n", s.Name, s.Kind, s.Width, s.Order, s.Decodable)
	}
	for _, c := range d.Columns() {
		fmt.Fprintf(&w.Buffer, "column %s %s:%s\n", c.Name, c.Family, c.Qualifier)
	}
	if q, ok := d.(interface {
		Inverted() bool
		QualifierSegments() []keys.Segment
	}); ok && q.Inverted() {
		for _, s := range q.QualifierSegments() {
			fmt.Fprintf(&w.Buffer, "qualifier segment %s kind=%q width=%d order=%s decodable=%t\n", s.Name, s.Kind, s.Width, s.Order, s.Decodable)
		}
	}
	splits := d.SplitKeys()
	fmt.Fprintf(&w.Buffer, "splits %d regions\n", len(splits)+1)
	for _, s := range splits {
		fmt.Fprintf(&w.Buffer, "  split %-8s hex %s\n", QuoteKey(s), hex.EncodeToString(s))
	}
}

func (w *goldenWriter) row(t *testing.T, d Definition, input string, r *Row) {
	t.Helper()
	parts, err := d.KeyParts(r.Key)
	if err != nil {
		t.Fatalf("%s: KeyParts(%x): %v", d.Name(), r.Key, err)
	}
	fmt.Fprintf(&w.Buffer, "\ninput %s\n", input)
	fmt.Fprintf(&w.Buffer, "  key  %s\n", QuoteKey(r.Key))
	fmt.Fprintf(&w.Buffer, "  hex  %s\n", hex.EncodeToString(r.Key))
	fmt.Fprintf(&w.Buffer, "  len  %d\n", len(r.Key))
	for _, p := range parts {
		fmt.Fprintf(&w.Buffer, "  part %s\n", p)
	}
	for _, c := range r.Cells {
		fmt.Fprintf(&w.Buffer, "  cell %s:%s = %s (hex %s)\n", c.Family, c.Qualifier, QuoteKey(c.Value), hex.EncodeToString(c.Value))
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./schema -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got  %s\n want %s\n(a changed key is a data migration; if intended, run go test ./schema -update)", path, i+1, g, w)
			}
		}
	}
}

// goldenTime is the fixed instant of the golden inputs: 2017-08-22
// 06:22:34.567 UTC (the seed's 1503382954 seconds, plus milliseconds).
var goldenTime = time.UnixMilli(1503382954567).UTC()

func TestGoldenSMS(t *testing.T) {
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	ix, ok := tbl.Index(seeds.SMSIndexTableName)
	if !ok {
		t.Fatal("no sms_index")
	}
	inputs := []seeds.SMS{
		{Mobile: "13812345678", SentAt: goldenTime, Seq: 0, Account: "acme", Content: "hello", Delivered: true},
		{Mobile: "13812345678", SentAt: goldenTime.Add(time.Second), Seq: 1, Account: "acme", Content: "again"},
		{Mobile: "18600000001", SentAt: time.Date(2017, 12, 12, 23, 59, 59, 999e6, time.UTC), Seq: 0xbeef, Account: "billing"},
		{Mobile: "15900000000", SentAt: time.UnixMilli(0).UTC(), Account: "epoch"},
	}
	var data, index goldenWriter
	data.header(tbl)
	index.header(ix)
	var r Row
	for _, in := range inputs {
		desc := fmt.Sprintf("mobile=%s sent=%s seq=%d account=%q content=%q delivered=%t",
			in.Mobile, in.SentAt.Format(time.RFC3339Nano), in.Seq, in.Account, in.Content, in.Delivered)
		if err := tbl.EncodeRow(&r, &in); err != nil {
			t.Fatal(err)
		}
		data.row(t, tbl, desc, &r)
		if err := ix.EncodeEntry(&r, &in); err != nil {
			t.Fatal(err)
		}
		index.row(t, ix, desc, &r)
	}
	checkGolden(t, "sms", data.Bytes())
	checkGolden(t, "sms_index", index.Bytes())
}

func TestGoldenTestTable(t *testing.T) {
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	ix, ok := tbl.Index(seeds.TestTableIndexName)
	if !ok {
		t.Fatal("no " + seeds.TestTableIndexName)
	}
	var w, iw goldenWriter
	w.header(tbl)
	iw.header(ix)
	var r Row
	for _, in := range []seeds.User{
		{UID: "u0001", Province: "Liaoning", Age: 20, Gender: "f"},
		{UID: "u0002", Province: "Sichuan", Age: 35, Gender: "m"},
		{UID: "alice@example.com", Age: 0},
		{UID: "10001", Province: "辽宁省", Age: 20, Gender: "m"},
	} {
		desc := fmt.Sprintf("uid=%q province=%q age=%d gender=%q", in.UID, in.Province, in.Age, in.Gender)
		if err := tbl.EncodeRow(&r, &in); err != nil {
			t.Fatal(err)
		}
		w.row(t, tbl, desc, &r)
		if err := ix.EncodeEntry(&r, &in); err != nil {
			t.Fatal(err)
		}
		iw.row(t, ix, desc, &r)
	}
	checkGolden(t, "test_table", w.Bytes())
	checkGolden(t, "testtable_province_age", iw.Bytes())
}

func TestGoldenLogData(t *testing.T) {
	inputs := []seeds.LogEvent{
		{Host: "a", At: goldenTime, Event: "e1", Message: "short names"},
		{Host: "myserver1.mycompany.com", At: goldenTime.Add(3 * time.Millisecond),
			Event: "com.package1.subpackage2.subsubpackage3.ImportantService", Message: "long names"},
		{Host: "web\x00zero", At: time.UnixMilli(-1).UTC(), Event: "", Message: ""},
	}
	for _, c := range []struct {
		golden string
		build  func() (*Table[seeds.LogEvent], error)
	}{
		{"log_data_bucketed", seeds.LogDataBucketed},
		{"log_data_by_host", seeds.LogDataByHost},
		{"log_data_md5", seeds.LogDataMD5},
	} {
		t.Run(c.golden, func(t *testing.T) {
			tbl, err := c.build()
			if err != nil {
				t.Fatal(err)
			}
			var w goldenWriter
			w.header(tbl)
			var r Row
			for _, in := range inputs {
				if err := tbl.EncodeRow(&r, &in); err != nil {
					t.Fatal(err)
				}
				w.row(t, tbl, fmt.Sprintf("host=%q at=%s event=%q message=%q",
					in.Host, in.At.Format(time.RFC3339Nano), in.Event, in.Message), &r)
			}
			checkGolden(t, c.golden, w.Bytes())
		})
	}
}

func TestGoldenCustomerOrder(t *testing.T) {
	tbl, err := seeds.CustomerOrderTable()
	if err != nil {
		t.Fatal(err)
	}
	var w goldenWriter
	w.header(tbl)
	var r Row
	for _, in := range []seeds.CustomerOrder{
		{CustomerID: "C1001", Type: seeds.CustomerRecord, Name: "Ada", City: "London", Phone: "+44 20 7946 0000"},
		{CustomerID: "C1001", Type: seeds.OrderRecord, OrderID: 42, SalesDate: time.Date(2017, 8, 22, 0, 0, 0, 0, time.UTC)},
		{CustomerID: "C1001", Type: seeds.LineRecord, OrderID: 42, Line: 1, Item: "book", Quantity: 2, ShipTo: "1 Main St"},
		{CustomerID: "C1001", Type: seeds.LineRecord, OrderID: 42, Line: 2, Item: "pen", Quantity: 10, ShipTo: "1 Main St"},
		{CustomerID: "C2002", Type: seeds.CustomerRecord, Name: "Grace"},
	} {
		if err := tbl.EncodeRow(&r, &in); err != nil {
			t.Fatal(err)
		}
		w.row(t, tbl, fmt.Sprintf("customer=%q type=%s order=%d line=%d", in.CustomerID, in.Type, in.OrderID, in.Line), &r)
	}
	checkGolden(t, "customer_order", w.Bytes())

	orders, err := seeds.OrderMD5Table()
	if err != nil {
		t.Fatal(err)
	}
	var o goldenWriter
	o.header(orders)
	for _, in := range []seeds.Order{
		{CustomerNumber: "C1001", OrderNumber: "SO-0042", SalesDate: time.Date(2017, 8, 22, 0, 0, 0, 0, time.UTC)},
		{CustomerNumber: "C1001", OrderNumber: "SO-0043"},
	} {
		if err := orders.EncodeRow(&r, &in); err != nil {
			t.Fatal(err)
		}
		o.row(t, orders, fmt.Sprintf("customer=%q order=%q", in.CustomerNumber, in.OrderNumber), &r)
	}
	checkGolden(t, "order_md5", o.Bytes())
}

// TestGoldenCoversBuiltins makes sure no built-in table is left without a
// golden file.
func TestGoldenCoversBuiltins(t *testing.T) {
	for _, name := range seeds.BuiltinNames() {
		file := strings.ToLower(name)
		if file == "testtable" {
			file = "test_table"
		}
		if _, err := os.Stat(filepath.Join("testdata", file+".golden")); err != nil {
			t.Errorf("built-in %s has no golden file: %v", name, err)
		}
	}
}
