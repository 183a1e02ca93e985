package dao_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// createTable creates the table of d on the fake, pre-split as declared.
func createTable(t testing.TB, c *fake.Client, d schema.Definition) {
	t.Helper()
	desc := hbase.TableDescriptor{Name: d.Name().String()}
	for _, f := range d.Families() {
		desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
	}
	if err := c.CreateTable(context.Background(), desc, d.SplitKeys()); err != nil {
		t.Fatalf("create table %s: %v", d.Name(), err)
	}
}

// createTables creates the data table of tbl and every index table it
// declares on the fake: an indexed store writes both.
func createTables[T any](t testing.TB, c *fake.Client, tbl *schema.Table[T]) {
	t.Helper()
	createTable(t, c, tbl)
	for _, ix := range tbl.Indexes() {
		createTable(t, c, ix)
	}
}

func newFake(t testing.TB) *fake.Client {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// newSMS returns a fake with the SMS tables (data and index) and a
// repository on it.
func newSMS(t testing.TB, c dao.Client, f *fake.Client, opts ...dao.Option) *seedstore.SMSRepo {
	t.Helper()
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl)
	r, err := seedstore.NewSMS(c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var t0 = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

func msg(mobile string, at time.Time, seq uint64) *seeds.SMS {
	return &seeds.SMS{Mobile: mobile, SentAt: at, Seq: seq, Account: "acct-" + mobile[len(mobile)-2:],
		Content: fmt.Sprintf("hello %s at %d/%d", mobile, at.UnixMilli(), seq), Delivered: seq%2 == 0}
}

// rawKeys scans a whole table with the raw client and returns its row keys.
func rawKeys(t testing.TB, c hbase.DataClient, table string) [][]byte {
	t.Helper()
	var out [][]byte
	for r, err := range hbase.ScanAll(context.Background(), c, &hbase.Scan{Table: table}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Row())
	}
	return out
}

// flaky wraps a client and fails chosen actions: a Put or a conditional
// write (CheckAndMutate, how an indexed store writes its data rows), alone
// or in a batch, whose row makes failRow return an error, and scans whose
// range makes failScan return one.
type flaky struct {
	dao.Client
	mu       sync.Mutex
	failRow  func(row []byte) error
	failScan func(s *hbase.Scan) error
	// afterBatch, if set, runs after each Batch call.
	afterBatch func()
	batches    int
	puts       int   // puts and conditional writes that reached the inner client
	cams       []int // per Batch call holding conditional writes, how many
}

// rowErr is the injected failure of a write of row, if any.
func (f *flaky) rowErr(row []byte) error {
	f.mu.Lock()
	fail := f.failRow
	f.mu.Unlock()
	if fail == nil {
		return nil
	}
	return fail(row)
}

func (f *flaky) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	if err := f.rowErr(cam.Row); err != nil {
		return false, err
	}
	f.mu.Lock()
	f.puts++
	f.mu.Unlock()
	return f.Client.CheckAndMutate(ctx, cam)
}

// reset clears the counters and the injected failures.
func (f *flaky) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failRow, f.failScan, f.afterBatch = nil, nil, nil
	f.batches, f.puts, f.cams = 0, 0, nil
}

var errInjected = errors.New("injected failure")

func (f *flaky) Put(ctx context.Context, p *hbase.Put) error {
	if err := f.rowErr(p.Row); err != nil {
		return err
	}
	f.mu.Lock()
	f.puts++
	f.mu.Unlock()
	return f.Client.Put(ctx, p)
}

func (f *flaky) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	f.mu.Lock()
	failScan := f.failScan
	f.mu.Unlock()
	if failScan != nil {
		if err := failScan(s); err != nil {
			return nil, err
		}
	}
	return f.Client.Scan(ctx, s)
}

func (f *flaky) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
	f.mu.Lock()
	f.batches++
	after := f.afterBatch
	f.mu.Unlock()
	if after != nil {
		defer after()
	}
	results := make([]hbase.BatchResult, len(actions))
	var pass []hbase.Action
	var at []int
	var failed []hbase.ActionError
	ncam := 0
	for i, a := range actions {
		var row []byte
		switch w := a.(type) {
		case *hbase.Put:
			row = w.Row
		case *hbase.CheckAndMutate:
			row = w.Row
			ncam++
		}
		if row != nil {
			if err := f.rowErr(row); err != nil {
				results[i] = hbase.BatchResult{Err: err}
				failed = append(failed, hbase.ActionError{Index: i, Action: a, Err: err})
				continue
			}
			f.mu.Lock()
			f.puts++
			f.mu.Unlock()
		}
		pass = append(pass, a)
		at = append(at, i)
	}
	if ncam > 0 {
		f.mu.Lock()
		f.cams = append(f.cams, ncam)
		f.mu.Unlock()
	}
	if len(pass) > 0 {
		res, err := f.Client.Batch(ctx, pass)
		var be *hbase.BatchError
		if err != nil && !errors.As(err, &be) {
			return nil, err
		}
		for j, r := range res {
			results[at[j]] = r
			if r.Err != nil {
				failed = append(failed, hbase.ActionError{Index: at[j], Action: pass[j], Err: r.Err})
			}
		}
	}
	if len(failed) > 0 {
		return results, &hbase.BatchError{Failed: failed}
	}
	return results, nil
}

// noLeak fails the test if more goroutines run than before, once the
// runtime has had a moment to retire the ones that just returned.
func noLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("goroutine leak: %d running, %d before\n%s", runtime.NumGoroutine(), before, buf[:n])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func keyString(k []byte) string {
	if bytes.ContainsFunc(k, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
		return fmt.Sprintf("%x", k)
	}
	return string(k)
}

func joinKeys(ks [][]byte) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = keyString(k)
	}
	return strings.Join(s, " ")
}

type keysRange = keys.KeyRange

// plainSMSTable is a copy of the seed SMS data table without its index:
// the same name, row key, columns and check (seeds.ValidateSMS as its
// Spec.Validate), so a store on it writes one data row per record in one
// Batch per chunk, as the SMS store did before its index was written
// through the store.
func plainSMSTable(t testing.TB) *schema.Table[seeds.SMS] {
	t.Helper()
	tbl, err := seeds.SMSDataTable(seeds.SMSTableName)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// newPlainSMS returns a store on the plain SMS table (plainSMSTable),
// created on f, writing through c.
func newPlainSMS(t testing.TB, c dao.Client, f *fake.Client, opts ...dao.Option) *dao.Repo[seeds.SMS] {
	t.Helper()
	tbl := plainSMSTable(t)
	createTable(t, f, tbl)
	r, err := dao.New(c, tbl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
