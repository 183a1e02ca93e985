package schema_test

import (
	"testing"
	"time"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// smsFields is a hand-written Fields[SMS], standing for the Fields of a
// struct (struct tags): FromDocument over it builds the SMS table from
// its document alone.
type smsFields struct{}

func (smsFields) Names() []string {
	return []string{"mobile", "sent", "unique", "account", "content", "delivered"}
}

func unknown(name string) error {
	return &Error{Field: name, Reason: "no such field", Kind: ErrUnknownField}
}

func (smsFields) String(name string) (func(*seeds.SMS) string, func(*seeds.SMS, string), error) {
	switch name {
	case "mobile":
		return func(s *seeds.SMS) string { return s.Mobile }, func(s *seeds.SMS, v string) { s.Mobile = v }, nil
	case "account":
		return func(s *seeds.SMS) string { return s.Account }, func(s *seeds.SMS, v string) { s.Account = v }, nil
	case "content":
		return func(s *seeds.SMS) string { return s.Content }, func(s *seeds.SMS, v string) { s.Content = v }, nil
	}
	return nil, nil, unknown(name)
}

func (smsFields) Uint64(name string) (func(*seeds.SMS) uint64, func(*seeds.SMS, uint64), error) {
	if name == "unique" {
		return func(s *seeds.SMS) uint64 { return s.Seq }, func(s *seeds.SMS, v uint64) { s.Seq = v }, nil
	}
	return nil, nil, unknown(name)
}

func (smsFields) Time(name string) (func(*seeds.SMS) time.Time, func(*seeds.SMS, time.Time), error) {
	if name == "sent" {
		return func(s *seeds.SMS) time.Time { return s.SentAt }, func(s *seeds.SMS, v time.Time) { s.SentAt = v }, nil
	}
	return nil, nil, unknown(name)
}

func (smsFields) Bool(name string) (func(*seeds.SMS) bool, func(*seeds.SMS, bool), error) {
	if name == "delivered" {
		return func(s *seeds.SMS) bool { return s.Delivered }, func(s *seeds.SMS, v bool) { s.Delivered = v }, nil
	}
	return nil, nil, unknown(name)
}

func (smsFields) Bytes(name string) (func(*seeds.SMS) []byte, func(*seeds.SMS, []byte), error) {
	return nil, nil, unknown(name)
}

func (smsFields) Int64(name string) (func(*seeds.SMS) int64, func(*seeds.SMS, int64), error) {
	return nil, nil, unknown(name)
}

func (smsFields) Float64(name string) (func(*seeds.SMS) float64, func(*seeds.SMS, float64), error) {
	return nil, nil, unknown(name)
}

func (smsFields) Duration(name string) (func(*seeds.SMS) time.Duration, func(*seeds.SMS, time.Duration), error) {
	return nil, nil, unknown(name)
}

// TestFromDocumentStruct: the SMS document opened over the SMS struct
// (FromDocument with its Fields and its Validate) is the SMS table: the
// same row keys, cells, index entries, checks and decoded records.
func TestFromDocumentStruct(t *testing.T) {
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	doc := exportDoc(t, tbl)
	st, err := FromDocument(doc, Fields[seeds.SMS](smsFields{}), WithValidate(seeds.ValidateSMS))
	if err != nil {
		t.Fatal(err)
	}
	sameDefinition(t, st, tbl)
	recs := []seeds.SMS{
		{Mobile: "13812345678", SentAt: docTime, Seq: 7, Account: "acme", Content: "hello", Delivered: true},
		{Mobile: "18600000001", SentAt: time.UnixMilli(0).UTC(), Account: "billing"},
	}
	for i := range recs {
		var want, got Record
		if err := tbl.EncodeRecord(&want, &recs[i]); err != nil {
			t.Fatal(err)
		}
		if err := st.EncodeRecord(&got, &recs[i]); err != nil {
			t.Fatal(err)
		}
		sameRow(t, "row", &got.Data, &want.Data)
		var back seeds.SMS
		if err := st.DecodeRow(got.Data.Key, got.Data.Cells, &back); err != nil || back != recs[i] {
			t.Errorf("decoded %+v, %v; want %+v", back, err, recs[i])
		}
		ge, we := got.Entries, want.Entries
		if len(ge) != len(we) {
			t.Fatalf("%d entries, want %d", len(ge), len(we))
		}
		for j := range ge {
			sameRow(t, "entry", &ge[j], &we[j])
		}
	}
	var r Record
	if err := st.EncodeRecord(&r, &seeds.SMS{Mobile: "1", SentAt: docTime, Account: "a"}); err == nil {
		t.Error("WithValidate(ValidateSMS) did not refuse a short mobile")
	}
}
