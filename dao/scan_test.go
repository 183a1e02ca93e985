package dao_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

var mobiles = []string{"13812345678", "13812345679", "15900001111", "18600002222"}

// smsData writes messages for several mobiles: some in the same
// millisecond (told apart by Seq), spread over two hours.
func smsData(t testing.TB, r *seedstore.SMSRepo) []*seeds.SMS {
	t.Helper()
	var recs []*seeds.SMS
	for i, m := range mobiles {
		for j := 0; j < 12; j++ {
			at := t0.Add(time.Duration(j*10+i) * time.Minute)
			recs = append(recs, msg(m, at, uint64(j%3)))
			if j%4 == 0 {
				recs = append(recs, msg(m, at, 9)) // same millisecond, another seq
			}
		}
	}
	if _, err := r.PutBatch(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

func keyOf(t testing.TB, r *dao.Repo[seeds.SMS], m *seeds.SMS) []byte {
	t.Helper()
	k, err := r.Table().AppendKey(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// expect filters recs, orders them by row key (descending if reversed)
// and cuts them at limit: the brute-force answer of a query.
func expect(t testing.TB, r *dao.Repo[seeds.SMS], recs []*seeds.SMS, keep func(*seeds.SMS) bool, reversed bool, limit int) [][]byte {
	var ks [][]byte
	for _, m := range recs {
		if keep(m) {
			ks = append(ks, keyOf(t, r, m))
		}
	}
	slices.SortFunc(ks, bytes.Compare)
	ks = slices.CompactFunc(ks, bytes.Equal)
	if reversed {
		slices.Reverse(ks)
	}
	if limit > 0 && len(ks) > limit {
		ks = ks[:limit]
	}
	return ks
}

func collect(t testing.TB, r *dao.Repo[seeds.SMS], ctx context.Context, q dao.Query[seeds.SMS]) [][]byte {
	t.Helper()
	var ks [][]byte
	for m, err := range r.Scan(ctx, q) {
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		ks = append(ks, keyOf(t, r, m))
	}
	return ks
}

func TestScanQueries(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	recs := smsData(t, r)
	m0 := mobiles[0]
	from, to := t0.Add(30*time.Minute), t0.Add(70*time.Minute)
	inWindow := func(m *seeds.SMS) bool {
		return m.Mobile == m0 && !m.SentAt.Before(from) && !m.SentAt.After(to)
	}
	cases := []struct {
		name string
		q    dao.Query[seeds.SMS]
		keep func(*seeds.SMS) bool
	}{
		{"whole table", dao.Query[seeds.SMS]{}, func(*seeds.SMS) bool { return true }},
		{"one mobile", dao.Prefix(&seeds.SMS{Mobile: m0}, 1), func(m *seeds.SMS) bool { return m.Mobile == m0 }},
		{"window, both ends in", dao.Between(&seeds.SMS{Mobile: m0, SentAt: from}, &seeds.SMS{Mobile: m0, SentAt: to}, 2), inWindow},
		{"one millisecond", dao.Prefix(&seeds.SMS{Mobile: m0, SentAt: t0}, 2), func(m *seeds.SMS) bool { return m.Mobile == m0 && m.SentAt.Equal(t0) }},
		{"no such mobile", dao.Prefix(&seeds.SMS{Mobile: "10000000000"}, 1), func(*seeds.SMS) bool { return false }},
	}
	for _, tc := range cases {
		for _, reversed := range []bool{false, true} {
			for _, limit := range []int{0, 1, 3} {
				q := tc.q
				q.Reversed, q.Limit = reversed, limit
				got := collect(t, r.Repo, ctx, q)
				want := expect(t, r.Repo, recs, tc.keep, reversed, limit)
				if !slices.EqualFunc(got, want, bytes.Equal) {
					t.Errorf("%s reversed=%v limit=%d:\n got %s\nwant %s", tc.name, reversed, limit, joinKeys(got), joinKeys(want))
				}
			}
		}
	}
}

func TestScanInvalidQueries(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	cases := []struct {
		name string
		q    dao.Query[seeds.SMS]
	}{
		{"negative limit", dao.Query[seeds.SMS]{Limit: -1}},
		{"bad mobile in the bound", dao.Prefix(&seeds.SMS{Mobile: "12ab"}, 1)},
		{"too many fields", dao.Prefix(&seeds.SMS{Mobile: mobiles[0]}, 4)},
		{"bounds without fields", dao.Query[seeds.SMS]{Lo: &seeds.SMS{}}},
		{"fields without bounds", dao.Query[seeds.SMS]{Fields: 1}},
		{"empty ranges", dao.Query[seeds.SMS]{Ranges: []keysRange{}}},
		{"reversed range", dao.Query[seeds.SMS]{Ranges: []keysRange{{Start: []byte("b"), Stop: []byte("a")}}}},
		{"overlapping ranges", dao.Query[seeds.SMS]{Ranges: []keysRange{{Start: []byte("a"), Stop: []byte("c")}, {Start: []byte("b"), Stop: []byte("d")}}}},
		{"merge skip across prefixes", dao.Query[seeds.SMS]{MergeSkip: 1, Ranges: []keysRange{{Start: []byte("a"), Stop: []byte("c")}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for m, err := range r.Scan(ctx, tc.q) {
				var qe *dao.QueryError
				if m != nil || !errors.Is(err, dao.ErrInvalidQuery) || !errors.As(err, &qe) {
					t.Fatalf("Scan = %v, %v; want a *QueryError", m, err)
				}
			}
			if tc.q.Limit != 0 {
				return // Page ignores the limit
			}
			if _, _, err := r.Page(ctx, tc.q, 10); !errors.Is(err, dao.ErrInvalidQuery) {
				t.Fatalf("Page = %v, want ErrInvalidQuery", err)
			}
		})
	}
}

// pageAll pages through q with pages of size n and returns the keys, in
// order, failing on a page that is too large.
func pageAll[T any](t *testing.T, r *dao.Repo[T], q dao.Query[T], n int, key func(*T) []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("paging does not end")
		}
		items, next, err := r.Page(context.Background(), q, n)
		if err != nil {
			t.Fatalf("Page: %v", err)
		}
		if len(items) > n || (next != "" && len(items) != n) {
			t.Fatalf("page of %d with next %q, page size %d", len(items), next, n)
		}
		for _, v := range items {
			out = append(out, key(v))
		}
		if next == "" {
			return out
		}
		q.Resume = next
	}
}

func TestPageResumesExactly(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	smsData(t, r)
	key := func(m *seeds.SMS) []byte { return keyOf(t, r.Repo, m) }
	queries := map[string]dao.Query[seeds.SMS]{
		"whole table": {},
		"one mobile":  dao.Prefix(&seeds.SMS{Mobile: mobiles[1]}, 1),
		"window":      dao.Between(&seeds.SMS{Mobile: mobiles[2], SentAt: t0}, &seeds.SMS{Mobile: mobiles[2], SentAt: t0.Add(time.Hour)}, 2),
	}
	for name, q := range queries {
		for _, reversed := range []bool{false, true} {
			q.Reversed = reversed
			all := collect(t, r.Repo, ctx, q)
			for _, size := range []int{1, 2, 5, 13, 1000} {
				got := pageAll(t, r.Repo, q, size, key)
				if !slices.EqualFunc(got, all, bytes.Equal) {
					t.Errorf("%s reversed=%v size %d:\n got %s\nwant %s", name, reversed, size, joinKeys(got), joinKeys(all))
				}
			}
		}
	}
}

func TestPageTokens(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	smsData(t, r)
	q := dao.Prefix(&seeds.SMS{Mobile: mobiles[0]}, 1)
	_, tok, err := r.Page(ctx, q, 2)
	if err != nil || tok == "" {
		t.Fatalf("Page = %q, %v", tok, err)
	}
	other := dao.Prefix(&seeds.SMS{Mobile: mobiles[1]}, 1)
	reversed := q
	reversed.Reversed = true
	cases := []struct {
		name string
		q    dao.Query[seeds.SMS]
		tok  dao.Token
		want error
	}{
		{"another mobile", other, tok, dao.ErrTokenMismatch},
		{"the other direction", reversed, tok, dao.ErrTokenMismatch},
		{"not base64", q, "!!!", dao.ErrInvalidToken},
		{"too short", q, "AQ", dao.ErrInvalidToken},
		{"unknown version", q, dao.Token("Ag" + string(tok[2:])), dao.ErrInvalidToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Resume = tc.tok
			if _, _, err := r.Page(ctx, tc.q, 2); !errors.Is(err, tc.want) {
				t.Errorf("Page = %v, want %v", err, tc.want)
			}
			for _, err := range r.Scan(ctx, tc.q) {
				if !errors.Is(err, tc.want) {
					t.Errorf("Scan = %v, want %v", err, tc.want)
				}
			}
		})
	}
	// The limit is not part of the query's identity: a token resumes a
	// scan with a limit too.
	q.Resume, q.Limit = tok, 1
	if got := collect(t, r.Repo, ctx, q); len(got) != 1 {
		t.Errorf("resumed Scan with limit 1 gave %d rows", len(got))
	}
	if _, _, err := r.Page(ctx, q, 0); !errors.Is(err, dao.ErrInvalidQuery) {
		t.Errorf("Page size 0 = %v, want ErrInvalidQuery", err)
	}
}

func TestCollect(t *testing.T) {
	seq := func(fail bool) func(func(*seeds.SMS, error) bool) {
		return func(yield func(*seeds.SMS, error) bool) {
			for _, m := range []string{"13800000001", "13800000002"} {
				if !yield(&seeds.SMS{Mobile: m}, nil) {
					return
				}
			}
			if fail {
				yield(nil, errors.New("scan failed"))
			}
		}
	}
	got, err := dao.Collect(seq(false))
	if err != nil || len(got) != 2 || got[0].Mobile != "13800000001" || got[1].Mobile != "13800000002" {
		t.Fatalf("Collect = %v, %v", got, err)
	}
	if got, err := dao.Collect(seq(true)); err == nil || got != nil {
		t.Fatalf("Collect of a failing scan = %v, %v; want only the error", got, err)
	}
}
