package index

import (
	"testing"

	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/seeds"
)

// TestInvertedEmptyQualifierNeverDeletesTheFamily: a Delete whose
// qualifier is nil deletes the family, every entry of the row. A cell with
// an empty qualifier (another client's, the schema never encodes one) is
// not repaired, and dropEntry never builds a nil qualifier: the client
// refuses an empty one.
func TestInvertedEmptyQualifierNeverDeletesTheFamily(t *testing.T) {
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	x, err := New(c, tbl, Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := x.ixs[0]
	if !s.inv {
		t.Fatal("TestTable's index is not inverted")
	}
	row := []byte("辽宁省_20")
	for _, q := range [][]byte{nil, {}} {
		d := s.dropEntry(row, q, 5, 0)
		if d.Qualifier == nil {
			t.Fatalf("dropEntry(%q): nil qualifier, a family delete", q)
		}
		if err := d.Validate(); err == nil {
			t.Fatalf("dropEntry(%q): the client accepts %+v", q, d)
		}
		// An orphan long past the grace period, pointing to no record.
		e := &entry{key: row, qual: q, version: 1000, maxTS: 1000, raw: []byte("1")}
		if w, cam := x.repairAction(0, e, verdict[seeds.User]{}); w != nil || cam != nil {
			t.Fatalf("repair of an empty-qualifier cell: %+v, %+v; want nothing", w, cam)
		}
	}
}
