package schema

import (
	"testing"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// benchUser is the README's user with a time and an int32, so the
// benchmark crosses string, integer-conversion and time accessors.
type benchUser struct {
	UID      string
	Name     string
	Province string
	Age      int32
	Joined   time.Time
}

// userAccessors is what a users table needs of its record.
type userAccessors struct {
	uid, name, province   func(*benchUser) string
	setUID, setName, setP func(*benchUser, string)
	age                   func(*benchUser) int64
	setAge                func(*benchUser, int64)
	joined                func(*benchUser) time.Time
	setJoined             func(*benchUser, time.Time)
}

func handAccessors() userAccessors {
	return userAccessors{
		uid: func(u *benchUser) string { return u.UID }, setUID: func(u *benchUser, v string) { u.UID = v },
		name: func(u *benchUser) string { return u.Name }, setName: func(u *benchUser, v string) { u.Name = v },
		province: func(u *benchUser) string { return u.Province }, setP: func(u *benchUser, v string) { u.Province = v },
		age: func(u *benchUser) int64 { return int64(u.Age) }, setAge: func(u *benchUser, v int64) { u.Age = int32(v) },
		joined: func(u *benchUser) time.Time { return u.Joined }, setJoined: func(u *benchUser, v time.Time) { u.Joined = v },
	}
}

func structAccessors(tb testing.TB) userAccessors {
	fs, err := StructFields[benchUser]()
	if err != nil {
		tb.Fatal(err)
	}
	var a userAccessors
	var errs [5]error
	a.uid, a.setUID, errs[0] = fs.String("uid")
	a.name, a.setName, errs[1] = fs.String("name")
	a.province, a.setP, errs[2] = fs.String("province")
	a.age, a.setAge, errs[3] = fs.Int64("age")
	a.joined, a.setJoined, errs[4] = fs.Time("joined")
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
	return a
}

// benchUsersTable is the README's users table (md5-led key, index by
// province and age) over the given accessors.
func benchUsersTable(tb testing.TB, a userAccessors) (*Table[benchUser], *Index[benchUser]) {
	uid := keys.String("uid", a.uid, a.setUID)
	key, err := keys.NewLayout(keys.MD5Hex("uid_md5", 4, a.uid), uid)
	if err != nil {
		tb.Fatal(err)
	}
	ageKey := keys.Decimal("age", 3, func(u *benchUser) uint64 { return uint64(a.age(u)) },
		func(u *benchUser, v uint64) { a.setAge(u, int64(v)) })
	byRegion, err := keys.NewLayout(keys.String("province", a.province, a.setP), ageKey, uid)
	if err != nil {
		tb.Fatal(err)
	}
	fams := []Family{{Name: "f"}}
	tbl, err := New(Spec[benchUser]{
		Name: "users", Families: fams, Key: key,
		Columns: []Column[benchUser]{
			StringColumn("name", "f", "n", a.name, a.setName),
			StringColumn("province", "f", "p", a.province, a.setP),
			Int64Column("age", "f", "a", a.age, a.setAge),
			TimeColumn("joined", "f", "j", a.joined, a.setJoined),
		},
		Indexes: []IndexSpec[benchUser]{{Name: "users_by_region", Families: fams, Key: byRegion, RowKeyQualifier: "row"}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	ix, _ := tbl.Index("users_by_region")
	return tbl, ix
}

var benchUserRecord = benchUser{UID: "u1", Name: "Ann", Province: "辽宁省", Age: 20,
	Joined: time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)}

// BenchmarkUserEncode encodes a record's data row and index entry
// (EncodeRecord) with hand-written accessors, with StructFields' in the
// same declaration, and with the table Bind builds from a document.
func BenchmarkUserEncode(b *testing.B) {
	for _, bc := range []struct {
		name string
		acc  func(testing.TB) userAccessors
	}{
		{"hand", func(testing.TB) userAccessors { return handAccessors() }},
		{"struct", structAccessors},
		{"bind", nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tbl := mustBind(b)
			if bc.acc != nil {
				tbl, _ = benchUsersTable(b, bc.acc(b))
			}
			var r Record
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					if err := tbl.EncodeRecord(&r, &benchUserRecord); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkUserDecode decodes the data row back into a record.
func BenchmarkUserDecode(b *testing.B) {
	for _, bc := range []struct {
		name string
		acc  func(testing.TB) userAccessors
	}{
		{"hand", func(testing.TB) userAccessors { return handAccessors() }},
		{"struct", structAccessors},
		{"bind", nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tbl := mustBind(b)
			if bc.acc != nil {
				tbl, _ = benchUsersTable(b, bc.acc(b))
			}
			var r Row
			if err := tbl.EncodeRow(&r, &benchUserRecord); err != nil {
				b.Fatal(err)
			}
			var out benchUser
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					if err := tbl.DecodeRow(r.Key, r.Cells, &out); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// TestStructFieldsEncodeLikeHand: the two tables encode the same bytes,
// and StructFields' accessors allocate nothing on the encoding path.
func TestStructFieldsEncodeLikeHand(t *testing.T) {
	hand, _ := benchUsersTable(t, handAccessors())
	tags, _ := benchUsersTable(t, structAccessors(t))
	var a, b Record
	if err := hand.EncodeRecord(&a, &benchUserRecord); err != nil {
		t.Fatal(err)
	}
	if err := tags.EncodeRecord(&b, &benchUserRecord); err != nil {
		t.Fatal(err)
	}
	if QuoteKey(a.Data.Key) != QuoteKey(b.Data.Key) || QuoteKey(a.Entries[0].Key) != QuoteKey(b.Entries[0].Key) {
		t.Errorf("keys differ: hand %s %s, struct %s %s", QuoteKey(a.Data.Key), QuoteKey(a.Entries[0].Key),
			QuoteKey(b.Data.Key), QuoteKey(b.Entries[0].Key))
	}
	var out benchUser
	if err := tags.DecodeRow(b.Data.Key, b.Data.Cells, &out); err != nil {
		t.Fatal(err)
	}
	if out != benchUserRecord {
		t.Errorf("decoded %+v, want %+v", out, benchUserRecord)
	}
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(100, func() { _ = tags.EncodeRecord(&b, &benchUserRecord) }); n != 0 {
		t.Errorf("EncodeRecord with StructFields accessors: %v allocations, want 0", n)
	}
}
