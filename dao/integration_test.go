//go:build integration

package dao_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// The integration tests and benchmarks run against a real HBase (make
// hbase-up, or tools/with-hbase.sh): HBKIT_ZK names the ZooKeeper quorum
// (default 127.0.0.1:2181). Every table gets a run-unique name and is
// dropped at the end.

var itNames = conformance.NameGenerator("itdao")

func TestMain(m *testing.M) { os.Exit(ittest.Main(m)) }

func itClient(t testing.TB) *hbase.Client {
	t.Helper()
	return ittest.Connect(t)
}

// itTable creates the table of d, pre-split as declared, under a unique
// name, and drops it when the test ends.
func itTable(t testing.TB, c *hbase.Client, d schema.Definition) string {
	t.Helper()
	return itTableNamed(t, c, d, itNames(d.Name().Qualifier))
}

// itTableNamed creates the table of d as name and drops it when the test
// ends (in the background: see ittest).
func itTableNamed(t testing.TB, c *hbase.Client, d schema.Definition, name string) string {
	t.Helper()
	desc := hbase.TableDescriptor{Name: name}
	for _, f := range d.Families() {
		attrs := f.Attributes()
		delete(attrs, "COMPRESSION") // the local HBase may lack native Snappy
		desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: attrs})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.CreateTable(ctx, desc, d.SplitKeys()); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	ittest.DropLater(t, name)
	return name
}

// itTables creates the data table of tbl and its index tables under
// unique names, and returns the option that serves the schema under them.
func itTables[T any](t testing.TB, c *hbase.Client, tbl *schema.Table[T]) dao.Option {
	t.Helper()
	names := map[string]string{tbl.Name().String(): itTable(t, c, tbl)}
	for _, ix := range tbl.Indexes() {
		names[ix.Name().String()] = itTable(t, c, ix)
	}
	return dao.WithTableNames(names)
}

func itSMS(t testing.TB, c *hbase.Client) *seedstore.SMSRepo {
	t.Helper()
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	r, err := seedstore.NewSMS(c, itTables(t, c, tbl), dao.WithBatchSize(50))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestIntegrationSMS(t *testing.T) {
	c := itClient(t)
	r := itSMS(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recs := smsData(t, r)

	// Bad records: rejected before anything is written.
	for _, tc := range invalidSMS() {
		if err := r.Put(ctx, tc.rec); !errors.Is(err, dao.ErrInvalidRecord) {
			t.Errorf("Put(%s) = %v, want ErrInvalidRecord", tc.name, err)
		}
	}
	if _, err := r.PutBatch(ctx, []*seeds.SMS{msg("17700000000", t0, 0), {Mobile: "1"}}); !errors.Is(err, dao.ErrInvalidRecord) {
		t.Errorf("PutBatch with a bad record = %v, want ErrInvalidRecord", err)
	}
	all := collect(t, r.Repo, ctx, dao.Query[seeds.SMS]{})
	if want := expect(t, r.Repo, recs, func(*seeds.SMS) bool { return true }, false, 0); !slices.EqualFunc(all, want, bytes.Equal) {
		t.Fatalf("table holds %d rows, want the %d written", len(all), len(want))
	}

	// Get, window, latest, pages.
	m := recs[5]
	if got, ok, err := r.Get(ctx, m); err != nil || !ok || got.Content != m.Content || !got.SentAt.Equal(m.SentAt) {
		t.Errorf("Get = %+v, %v, %v; want %+v", got, ok, err, m)
	}
	from, to := t0.Add(20*time.Minute), t0.Add(80*time.Minute)
	var window [][]byte
	for got, err := range r.Messages(ctx, mobiles[0], from, to, 0) {
		if err != nil {
			t.Fatal(err)
		}
		window = append(window, keyOf(t, r.Repo, got))
	}
	want := expect(t, r.Repo, recs, func(s *seeds.SMS) bool {
		return s.Mobile == mobiles[0] && !s.SentAt.Before(from) && s.SentAt.Before(to)
	}, false, 0)
	if len(want) == 0 || !slices.EqualFunc(window, want, bytes.Equal) {
		t.Errorf("window:\n got %s\nwant %s", joinKeys(window), joinKeys(want))
	}
	// The same window oldest first: a reversed scan of a bounded range.
	q, err := r.WindowQuery(mobiles[0], from, to)
	if err != nil {
		t.Fatal(err)
	}
	q.Reversed = true
	slices.Reverse(want)
	if got := collect(t, r.Repo, ctx, q); !slices.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("reversed window:\n got %s\nwant %s", joinKeys(got), joinKeys(want))
	}
	latest, err := r.Latest(ctx, mobiles[1], 2)
	if err != nil || len(latest) != 2 || latest[0].SentAt.Before(latest[1].SentAt) {
		t.Errorf("Latest = %v, %v", latest, err)
	}
	for _, reversed := range []bool{false, true} {
		q := dao.Query[seeds.SMS]{Reversed: reversed}
		full := collect(t, r.Repo, ctx, q)
		if paged := pageAll(t, r.Repo, q, 7, func(s *seeds.SMS) []byte { return keyOf(t, r.Repo, s) }); !slices.EqualFunc(paged, full, bytes.Equal) {
			t.Errorf("reversed=%v: pages give %d rows, the scan %d", reversed, len(paged), len(full))
		}
	}
	if err := r.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.Get(ctx, m); err != nil || ok {
		t.Errorf("Get after Delete = %v, %v", ok, err)
	}
}

// The check against HBase: a bucketed scan over 10 buckets (10
// regions) returns exactly the rows of a plain full scan, in key order.
func TestIntegrationBucketedScan(t *testing.T) {
	c := itClient(t)
	tbl, err := seeds.LogDataBucketed()
	if err != nil {
		t.Fatal(err)
	}
	r, err := dao.New(c, tbl, itTables(t, c, tbl), dao.WithScanConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	logData(t, r, rand.New(rand.NewPCG(1, 2)), 1000)
	buckets, err := dao.BucketRanges(seeds.LogBuckets, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := scanLog(t, r, dao.Query[seeds.LogEvent]{})
	merged, _ := scanLog(t, r, dao.Query[seeds.LogEvent]{Ranges: buckets})
	if len(full) < 900 || !slices.EqualFunc(merged, full, bytes.Equal) {
		t.Fatalf("bucketed scan gave %d rows, the full scan %d; equal: %v", len(merged), len(full), slices.EqualFunc(merged, full, bytes.Equal))
	}
	for _, reversed := range []bool{false, true} {
		q := dao.Query[seeds.LogEvent]{Ranges: buckets, MergeSkip: 1, Reversed: reversed}
		byTime, _ := scanLog(t, r, q)
		if want := mergedAnswer(full, buckets, 1, reversed, 0); !slices.EqualFunc(byTime, want, bytes.Equal) {
			t.Errorf("reversed=%v: time-ordered merge differs from the brute-force order", reversed)
		}
		if paged := pageAll(t, r, q, 97, logKey(t, r)); !slices.EqualFunc(paged, byTime, bytes.Equal) {
			t.Errorf("reversed=%v: pages of the merge differ from the scan", reversed)
		}
	}
}

// Insert decides on HBase, with a conditional write, that a key a live
// record holds is taken: on an indexed table (the protocol's version
// cell) and on a plain one (the record's first cell). A deleted record's
// key is free again.
func TestIntegrationInsertExists(t *testing.T) {
	c := itClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	onIndexedAndPlain(t, c, func(t *testing.T, r *dao.Repo[seeds.SMS]) {
		a := &seeds.SMS{Mobile: "13812345678", SentAt: t0, Account: "shop", Content: "first"}
		b := &seeds.SMS{Mobile: "13812345678", SentAt: t0, Account: "bank", Content: "second"}
		if err := r.Insert(ctx, a); err != nil {
			t.Fatalf("Insert of a new key = %v", err)
		}
		if err := r.Insert(ctx, b); !errors.Is(err, dao.ErrExists) {
			t.Fatalf("Insert of an existing key = %v, want ErrExists", err)
		}
		results, err := r.InsertBatch(ctx, []*seeds.SMS{b, msg("13812345679", t0, 0)})
		if !errors.Is(err, dao.ErrExists) || !errors.Is(results[0], dao.ErrExists) || results[1] != nil {
			t.Errorf("InsertBatch = %v, %v; want record 0 ErrExists, record 1 written", results, err)
		}
		if got, ok, err := r.Get(ctx, a); err != nil || !ok || got.Content != "first" || got.Account != "shop" {
			t.Errorf("Get = %+v, %v, %v; want the first record unchanged", got, ok, err)
		}
		if err := r.Flush(ctx); err != nil {
			t.Error(err)
		}
	})
}

// A deleted record's key is free again: an Insert right after the Delete
// succeeds and the record is there. HBase hides a put under a delete
// marker of the same millisecond when both take the server's time.
func TestIntegrationInsertAfterDelete(t *testing.T) {
	c := itClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	onIndexedAndPlain(t, c, func(t *testing.T, r *dao.Repo[seeds.SMS]) {
		const rounds = 30
		lost := 0
		for i := range rounds {
			m := &seeds.SMS{Mobile: "13812345678", SentAt: t0.Add(time.Duration(i) * time.Second), Account: "shop", Content: fmt.Sprint("round ", i)}
			if err := r.Put(ctx, m); err != nil {
				t.Fatalf("round %d: Put = %v", i, err)
			}
			if err := r.Delete(ctx, m); err != nil {
				t.Fatalf("round %d: Delete = %v", i, err)
			}
			if err := r.Insert(ctx, m); err != nil {
				t.Fatalf("round %d: Insert after Delete = %v, want success", i, err)
			}
			if got, ok, err := r.Get(ctx, m); err != nil || !ok || got.Content != m.Content {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%d of %d records inserted right after a delete are missing, want 0", lost, rounds)
		}
		if err := r.Flush(ctx); err != nil {
			t.Error(err)
		}
	})
}

// onIndexedAndPlain runs test on a store of the SMS table with its index
// and on one of the data table alone, each on tables of its own.
func onIndexedAndPlain(t *testing.T, c *hbase.Client, test func(t *testing.T, r *dao.Repo[seeds.SMS])) {
	indexed, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tbl  *schema.Table[seeds.SMS]
	}{{"indexed", indexed}, {"plain", plainSMSTable(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := dao.New(c, tc.tbl, itTables(t, c, tc.tbl))
			if err != nil {
				t.Fatal(err)
			}
			test(t, r)
		})
	}
}

// BenchmarkIntegrationOverhead runs the overhead benchmarks of
// bench_test.go against the real HBase: dao/raw is the repository's
// overhead over hand-written client calls (goal: at most 1.05).
func BenchmarkIntegrationOverhead(b *testing.B) {
	c := itClient(b)
	tbl := plainSMSTable(b)
	r, err := dao.New(c, tbl, itTables(b, c, tbl))
	if err != nil {
		b.Fatal(err)
	}
	runOverhead(b, c, r)
}
