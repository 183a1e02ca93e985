package bench

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// TestSMSDataOnlyRows holds smsDataOnly to seeds.SMSTable: the same row
// key and cells for every record, the same check, and no index.
func TestSMSDataOnlyRows(t *testing.T) {
	st, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := smsDataOnly(st)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(plain.Indexes()); n != 0 {
		t.Fatalf("smsDataOnly declares %d indexes, want 0", n)
	}
	if got, want := plain.Name(), st.Name(); got != want {
		t.Fatalf("name %v, want %v", got, want)
	}
	if got, want := plain.Fields(), st.Fields(); !slices.Equal(got, want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	recs := []*seeds.SMS{
		{Mobile: "13912345678", SentAt: time.Date(2026, 11, 22, 1, 2, 3, 4e6, time.UTC), Seq: 7, Account: "acct001", Content: "hello", Delivered: true},
		{Mobile: "13900000000", SentAt: time.Unix(0, 0).UTC(), Account: "a"},
	}
	for _, rec := range recs {
		var got, want schema.Row
		if err := plain.EncodeRow(&got, rec); err != nil {
			t.Fatal(err)
		}
		if err := st.EncodeRow(&want, rec); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Key, want.Key) {
			t.Fatalf("key got %x, want %x", got.Key, want.Key)
		}
		if len(got.Cells) != len(want.Cells) {
			t.Fatalf("cells got %v, want %v", got.Cells, want.Cells)
		}
		for i := range got.Cells {
			g, w := got.Cells[i], want.Cells[i]
			if g.Family != w.Family || g.Qualifier != w.Qualifier || !bytes.Equal(g.Value, w.Value) {
				t.Fatalf("cell %d got %s:%s=%x, want %s:%s=%x", i, g.Family, g.Qualifier, g.Value, w.Family, w.Qualifier, w.Value)
			}
		}
	}
	bad := &seeds.SMS{Mobile: "1391234567x", SentAt: time.Now(), Account: "a"}
	if err := plain.Check(bad); err == nil {
		t.Fatal("smsDataOnly accepted a mobile that is not 11 digits")
	}
	if err := st.Check(bad); err == nil {
		t.Fatal("SMSTable accepted a mobile that is not 11 digits")
	}
}
