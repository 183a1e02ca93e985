package dao_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// Rows the schema cannot decode, written behind the repository's back,
// end a scan with a *DecodeError naming the field, and fail a Get.
func TestDecodeErrors(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	cases := []struct {
		name  string
		row   string
		cells map[string][]byte
		field string
	}{
		{"key too short", "8765432183", map[string][]byte{"a": []byte("x")}, "mobile"},
		{"timestamp not digits", "87654321831" + "92233705334718218x7" + "0001", map[string][]byte{"a": []byte("x")}, "sent"},
		{"bad delivered flag", "87654321831" + "9223370533471821807" + "0001", map[string][]byte{"d": []byte("yes")}, "delivered"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := f.Put(ctx, &hbase.Put{Table: "sms", Row: []byte(tc.row), Values: map[string]map[string][]byte{"cf": tc.cells}}); err != nil {
				t.Fatal(err)
			}
			defer f.Delete(ctx, &hbase.Delete{Table: "sms", Row: []byte(tc.row)})
			var last error
			for m, err := range r.Scan(ctx, dao.Query[seeds.SMS]{}) {
				if m != nil {
					t.Errorf("decoded %+v", m)
				}
				last = err
			}
			var de *dao.DecodeError
			if !errors.Is(last, dao.ErrDecode) || !errors.As(last, &de) || de.Field != tc.field {
				t.Fatalf("Scan = %v, want a *DecodeError on %q", last, tc.field)
			}
			if !errors.Is(last, schema.ErrInvalidKey) && !errors.Is(last, schema.ErrInvalidValue) {
				t.Errorf("Scan = %v, want the schema error wrapped", last)
			}
		})
	}
}

// FuzzPageToken hands arbitrary tokens to Page: a token is input from
// outside (a client of an API that pages), so it must yield an error or a
// page, never a panic, and only tokens this package made are accepted.
func FuzzPageToken(f *testing.F) {
	fc := newFake(f)
	r := newSMS(f, fc, fc)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := r.Put(ctx, msg("13812345678", t0, uint64(i))); err != nil {
			f.Fatal(err)
		}
	}
	q := dao.Prefix(&seeds.SMS{Mobile: "13812345678"}, 1)
	_, tok, err := r.Page(ctx, q, 2)
	if err != nil || tok == "" {
		f.Fatalf("Page = %q, %v", tok, err)
	}
	f.Add(string(tok))
	f.Add("")
	f.Add("AQ")
	f.Add("AQAAAAAAAAAAAA")
	f.Add(string(tok) + "A")
	f.Fuzz(func(t *testing.T, s string) {
		q := q
		q.Resume = dao.Token(s)
		items, next, err := r.Page(ctx, q, 2)
		if err != nil {
			if !errors.Is(err, dao.ErrInvalidToken) && !errors.Is(err, dao.ErrTokenMismatch) {
				t.Fatalf("Page(%q) = %v, want a token error", s, err)
			}
			return
		}
		if len(items) > 2 || (next != "" && len(items) != 2) {
			t.Fatalf("Page(%q) = %d items, next %q", s, len(items), next)
		}
	})
}
