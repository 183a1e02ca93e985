package schema_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"

	"github.com/hbkit/hbkit/keys"
)

// exportDoc exports d's document and checks that its JSON form round
// trips losslessly.
func exportDoc(t *testing.T, d interface{ Document() (Document, error) }) Document {
	t.Helper()
	doc, err := d.Document()
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	j, err := doc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseDocument(j)
	if err != nil {
		t.Fatalf("ParseDocument of the exported document: %v\n%s", err, j)
	}
	if !reflect.DeepEqual(back, doc) {
		t.Fatalf("JSON round trip changed the document:\n got  %+v\n want %+v", back, doc)
	}
	j2, err := back.JSON()
	if err != nil || !bytes.Equal(j, j2) {
		t.Fatalf("JSON of the parsed document differs (%v):\n%s\n%s", err, j2, j)
	}
	return back
}

// sameDefinition compares what two definitions tell admin and the CLI.
func sameDefinition(t *testing.T, got, want Definition) {
	t.Helper()
	name := want.Name().String()
	if got.Name() != want.Name() {
		t.Errorf("name %s, want %s", got.Name(), want.Name())
	}
	if !reflect.DeepEqual(got.Families(), want.Families()) {
		t.Errorf("%s: families %+v, want %+v", name, got.Families(), want.Families())
	}
	if !reflect.DeepEqual(got.Columns(), want.Columns()) {
		t.Errorf("%s: columns %+v, want %+v", name, got.Columns(), want.Columns())
	}
	if g, w := segmentText(got.KeySegments()), segmentText(want.KeySegments()); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: key segments\n got  %v\n want %v", name, g, w)
	}
	if g, w := got.SplitKeys(), want.SplitKeys(); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: split keys %q, want %q", name, g, w)
	}
}

// segmentText makes segments comparable: a zone by its name.
func segmentText(segs []keys.Segment) []any {
	out := make([]any, len(segs))
	for i, s := range segs {
		zone := s.Zone().String()
		s.Location = nil
		out[i] = []any{s, zone}
	}
	return out
}

// checkEquivalent opens tbl's document over Values and checks that, for
// every record, it encodes the same row key, cells and index entries as
// tbl, and that both decode to the same record. names sets the fields a
// row does not hold (UID names) in the Values decoded from a row.
func checkEquivalent[T any](t *testing.T, tbl *Table[T], vt *Table[Values], recs []T, names func(*T, Values)) {
	t.Helper()
	sameDefinition(t, vt, tbl)
	if vt.WriteMode() != tbl.WriteMode() || !reflect.DeepEqual(vt.Fields(), tbl.Fields()) || len(vt.UIDs()) != len(tbl.UIDs()) {
		t.Errorf("write mode %s fields %v uids %d, want %s %v %d", vt.WriteMode(), vt.Fields(), len(vt.UIDs()),
			tbl.WriteMode(), tbl.Fields(), len(tbl.UIDs()))
	}
	if want, err := tbl.Document(); err == nil {
		got, err := vt.Document()
		if err != nil {
			t.Fatal(err)
		}
		got.Validate = want.Validate // Validate is Go code: Open has none unless given
		if !reflect.DeepEqual(got, want) {
			t.Errorf("document of the opened table differs:\n got  %+v\n want %+v", got, want)
		}
	}
	ixs, vixs := tbl.Indexes(), vt.Indexes()
	if len(ixs) != len(vixs) {
		t.Fatalf("%d indexes, want %d", len(vixs), len(ixs))
	}
	for i := range ixs {
		sameDefinition(t, vixs[i], ixs[i])
		if g, w := segmentText(vixs[i].QualifierSegments()), segmentText(ixs[i].QualifierSegments()); !reflect.DeepEqual(g, w) {
			t.Errorf("index %s: qualifier %v, want %v", ixs[i].Name(), g, w)
		}
	}
	for i := range recs {
		checkRecord(t, tbl, vt, &recs[i], names)
	}
}

func checkRecord[T any](t *testing.T, tbl *Table[T], vt *Table[Values], rec *T, names func(*T, Values)) {
	t.Helper()
	var goRow, vRow Row
	if err := tbl.EncodeRow(&goRow, rec); err != nil {
		t.Fatalf("Go table: %v", err)
	}
	v := Values{}
	if err := vt.DecodeRow(goRow.Key, goRow.Cells, &v); err != nil {
		t.Fatalf("document table: decode %x: %v", goRow.Key, err)
	}
	if names != nil {
		names(rec, v)
	}
	if err := vt.Check(&v); err != nil {
		t.Fatalf("values %v fail their type check: %v", v, err)
	}
	if err := vt.EncodeRow(&vRow, &v); err != nil {
		t.Fatalf("document table: encode %v: %v", v, err)
	}
	sameRow(t, "row of "+tbl.Name().String(), &vRow, &goRow)
	var want, back T
	if err := tbl.DecodeRow(goRow.Key, goRow.Cells, &want); err != nil {
		t.Fatal(err)
	}
	if err := tbl.DecodeRow(vRow.Key, vRow.Cells, &back); err != nil {
		t.Fatalf("Go table cannot decode the document table's row: %v", err)
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("decoded %+v, want %+v", back, want)
	}
	for i, ix := range tbl.Indexes() {
		vix := vt.Indexes()[i]
		var goEntry, vEntry Row
		if err := ix.EncodeEntry(&goEntry, rec); err != nil {
			t.Fatalf("Go index %s: %v", ix.Name(), err)
		}
		if err := vix.EncodeEntry(&vEntry, &v); err != nil {
			t.Fatalf("document index %s: %v", ix.Name(), err)
		}
		sameRow(t, "entry of "+ix.Name().String(), &vEntry, &goEntry)
		back := Values{}
		if err := vix.DecodeEntry(goEntry.Key, goEntry.Cells, &back); err != nil {
			t.Errorf("document index %s cannot decode the Go entry: %v", ix.Name(), err)
		}
	}
}

func sameRow(t *testing.T, what string, got, want *Row) {
	t.Helper()
	if !bytes.Equal(got.Key, want.Key) {
		t.Errorf("%s: key %x, want %x (%s, want %s)", what, got.Key, want.Key, QuoteKey(got.Key), QuoteKey(want.Key))
	}
	if !reflect.DeepEqual(got.Cells, want.Cells) {
		t.Errorf("%s: cells %q, want %q", what, got.Cells, want.Cells)
	}
}

func open(t *testing.T, doc Document, opts ...Option[Values]) *Table[Values] {
	t.Helper()
	vt, err := Open(doc, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return vt
}

var docTime = time.Date(2024, 2, 29, 23, 30, 15, 123e6, time.UTC)

func TestDocumentSMS(t *testing.T) {
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	recs := []seeds.SMS{
		{Mobile: "13812345678", SentAt: docTime, Seq: 7, Account: "acme", Content: "hello", Delivered: true},
		{Mobile: "18600000001", SentAt: time.UnixMilli(0).UTC(), Account: "billing"},
	}
	vt := open(t, exportDoc(t, tbl))
	checkEquivalent(t, tbl, vt, recs, nil)
	var r Row
	if err := tbl.EncodeRow(&r, &recs[0]); err != nil {
		t.Fatal(err)
	}
	v := Values{}
	if err := vt.DecodeRow(r.Key, r.Cells, &v); err != nil {
		t.Fatal(err)
	}
	want := Values{"mobile": "13812345678", "sent": docTime, "unique": uint64(7), "account": "acme", "content": "hello", "delivered": true}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("values %v, want %v", v, want)
	}
}

func TestDocumentTestTable(t *testing.T) {
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	checkEquivalent(t, tbl, open(t, exportDoc(t, tbl)), []seeds.User{
		{UID: "u0001", Province: "辽宁省", Age: 20, Gender: "f"},
		{UID: "alice@example.com", Province: "Sichuan", Age: 0},
	}, nil)
}

var docLogEvents = []seeds.LogEvent{
	{Host: "a", At: docTime, Event: "e1", Message: "short"},
	{Host: "web\x00zero", At: time.UnixMilli(-1).UTC(), Event: "", Message: ""},
	{Host: "myserver1.mycompany.com", At: docTime.Add(3 * time.Millisecond), Event: "com.ImportantService"},
}

func TestDocumentLogData(t *testing.T) {
	for name, build := range map[string]func() (*Table[seeds.LogEvent], error){
		"bucketed": seeds.LogDataBucketed, "by_host": seeds.LogDataByHost, "md5": seeds.LogDataMD5,
	} {
		t.Run(name, func(t *testing.T) {
			tbl, err := build()
			if err != nil {
				t.Fatal(err)
			}
			checkEquivalent(t, tbl, open(t, exportDoc(t, tbl)), docLogEvents, nil)
		})
	}
}

func TestDocumentCustomerOrder(t *testing.T) {
	tbl, err := seeds.CustomerOrderTable()
	if err != nil {
		t.Fatal(err)
	}
	checkEquivalent(t, tbl, open(t, exportDoc(t, tbl)), []seeds.CustomerOrder{
		{CustomerID: "C1001", Type: seeds.CustomerRecord, Name: "Ada", City: "London"},
		{CustomerID: "C1001", Type: seeds.OrderRecord, OrderID: 42, SalesDate: docTime},
		{CustomerID: "C1001", Type: seeds.LineRecord, OrderID: 42, Line: 1, Item: "book", Quantity: 2, ShipTo: "1 Main St"},
	}, nil)
	orders, err := seeds.OrderMD5Table()
	if err != nil {
		t.Fatal(err)
	}
	checkEquivalent(t, orders, open(t, exportDoc(t, orders)), []seeds.Order{
		{CustomerNumber: "C1001", OrderNumber: "SO-0042", SalesDate: docTime},
		{CustomerNumber: "C1001", OrderNumber: "SO-0043"},
	}, nil)
}

func TestDocumentUIDTables(t *testing.T) {
	types, err := seeds.LogTypes()
	if err != nil {
		t.Fatal(err)
	}
	checkEquivalent(t, types, open(t, exportDoc(t, types)), []UIDRow{
		{Type: "c", Kind: "host", Key: "", Counter: 9},
		{Type: "f", Kind: "host", Key: "web1", ID: []byte{0, 0, 3}},
		{Type: "r", Kind: "event", Key: "\x00\x07", Name: "login"},
	}, nil)
	tbl, err := seeds.LogDataUID()
	if err != nil {
		t.Fatal(err)
	}
	doc := exportDoc(t, tbl)
	if len(doc.UIDs) != 2 || doc.UIDs[0] != (DocUID{Segment: "host_id", Kind: "host", Width: 3, Field: "host"}) {
		t.Errorf("uids %+v", doc.UIDs)
	}
	checkEquivalent(t, tbl, open(t, doc), []seeds.UIDLogEvent{
		{LogEvent: seeds.LogEvent{Host: "web1", Event: "login", At: docTime, Message: "ok"}, HostID: 3, EventID: 7},
	}, nil)
}

func TestDocumentLogDataWide(t *testing.T) {
	tbl, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	recs := []seeds.UIDLogEvent{
		{LogEvent: seeds.LogEvent{Host: "web1", Event: "login", At: docTime, Message: "ok"}, HostID: 3, EventID: 7},
		{LogEvent: seeds.LogEvent{Host: "db2", At: time.UnixMilli(5).UTC()}, HostID: 1 << 20, EventID: 1},
	}
	checkWideEquivalent(t, tbl, exportDoc(t, tbl), recs, func(e *seeds.UIDLogEvent, v Values) { v["host"] = e.Host })
}

func checkWideEquivalent[T any](t *testing.T, tbl *WideTable[T], doc Document, recs []T, names func(*T, Values)) {
	t.Helper()
	vt, err := OpenWide(doc)
	if err != nil {
		t.Fatalf("OpenWide: %v", err)
	}
	sameDefinition(t, vt, tbl)
	if g, w := segmentText(vt.QualifierSegments()), segmentText(tbl.QualifierSegments()); !reflect.DeepEqual(g, w) {
		t.Errorf("qualifier %v, want %v", g, w)
	}
	for i := range recs {
		var goCell, vCell WideCell
		if err := tbl.EncodeCell(&goCell, &recs[i]); err != nil {
			t.Fatal(err)
		}
		v := Values{}
		if err := vt.DecodeCell(goCell.Row, goCell.Qualifier, goCell.Value, &v); err != nil {
			t.Fatalf("document table: decode: %v", err)
		}
		if names != nil {
			names(&recs[i], v)
		}
		if err := vt.EncodeCell(&vCell, &v); err != nil {
			t.Fatalf("document table: encode %v: %v", v, err)
		}
		if !bytes.Equal(vCell.Row, goCell.Row) || !bytes.Equal(vCell.Qualifier, goCell.Qualifier) || !bytes.Equal(vCell.Value, goCell.Value) {
			t.Errorf("cell %x/%x=%x, want %x/%x=%x", vCell.Row, vCell.Qualifier, vCell.Value, goCell.Row, goCell.Qualifier, goCell.Value)
		}
		var want, back T
		if err := tbl.DecodeCell(goCell.Row, goCell.Qualifier, goCell.Value, &want); err != nil {
			t.Fatal(err)
		}
		if err := tbl.DecodeCell(vCell.Row, vCell.Qualifier, vCell.Value, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("decoded %+v, want %+v", back, want)
		}
	}
}

func TestDocumentLedger(t *testing.T) {
	tbl, err := ledgerTable()
	if err != nil {
		t.Fatal(err)
	}
	doc := exportDoc(t, tbl)
	if doc.Key[2].Zone != "Asia/Shanghai" || doc.Key[3].Zone != "Asia/Shanghai" || !doc.Validate {
		t.Errorf("zones %q %q validate %t, want Asia/Shanghai twice and true", doc.Key[2].Zone, doc.Key[3].Zone, doc.Validate)
	}
	vt := open(t, doc, WithValidate(func(v *Values) error {
		if (*v)["currency"] == nil {
			return Invalid("currency", "missing")
		}
		return nil
	}))
	// 16:30 UTC on Feb 29 is 00:30 on Mar 1 in Shanghai: the date differs from UTC's.
	checkEquivalent(t, tbl, vt, []Entry{
		{Account: "ACC-1", Booked: time.Date(2024, 2, 29, 16, 30, 0, 0, time.UTC), Seq: 1, Cents: 12345, Currency: "CNY", Rate: 7.1, Cleared: true},
		{Account: "x", Booked: docTime, Seq: 99999999, Cents: 0, Currency: "EUR"},
	}, nil)
	var rec Record
	if err := vt.EncodeRecord(&rec, &Values{"account": "a", "booked": docTime, "entry": uint64(1), "cents": int64(1)}); !errors.Is(err, ErrInvalidRecord) {
		t.Errorf("record without currency: %v, want ErrInvalidRecord from WithValidate", err)
	}
	if err := vt.EncodeRecord(&rec, &Values{"account": "a", "booked": docTime, "entry": 1, "currency": "X"}); !errors.Is(err, ErrInvalidRecord) {
		t.Errorf("entry of type int: %v, want ErrInvalidRecord", err)
	}
}

func TestDocumentChat(t *testing.T) {
	tbl, err := chatTable()
	if err != nil {
		t.Fatal(err)
	}
	recs := []Message{
		{User: "ann", Conv: "c1", Sent: docTime, ID: 1, Folder: "inbox", Unread: true, Body: "hi", Flags: []byte{1, 2}},
		{User: "ann", Conv: "c1", Sent: docTime, ID: 1, Folder: "archive", Body: "hi"},
		{User: "bob\x00", Sent: time.UnixMilli(1).UTC(), ID: 1<<32 - 1, Folder: ""},
	}
	checkEquivalent(t, tbl, open(t, exportDoc(t, tbl)), recs, nil)
}

func TestDocumentSensor(t *testing.T) {
	tbl, err := sensorTable(newRand())
	if err != nil {
		t.Fatal(err)
	}
	doc := exportDoc(t, tbl)
	if _, err := Open(doc); !errors.Is(err, ErrUnknownCodec) {
		t.Fatalf("Open without the site4 codec: %v, want ErrUnknownCodec", err)
	}
	vt := open(t, doc, WithCodec[Values](siteCodec()), WithRandSource[Values](newRand()))
	checkEquivalent(t, tbl, vt, []Reading{
		{Site: "ABCZ", Device: 42, Channel: -3, Kind: 7, At: docTime, Seq: 1, Value: 21.5, Unit: "C", Raw: []byte{9}},
		{Site: "ZZZZ", Device: 1 << 40, Channel: 1 << 30, Kind: -1, At: time.UnixMilli(0).UTC(), Unit: "hPa"},
	}, nil)
	wide, err := sensorWide()
	if err != nil {
		t.Fatal(err)
	}
	checkWideEquivalent(t, wide, exportDoc(t, wide), []Reading{
		{Site: "000042", At: docTime, Unit: "007", Value: 1.5},
		{Site: "999999", At: time.UnixMilli(3599999).UTC(), Unit: "000", Value: -2},
	}, nil)
}
