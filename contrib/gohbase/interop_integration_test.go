//go:build integration

package gohbase_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// TestIntegrationInterop: one binary with hbkit's native client
// (hbase.New) and gohbase, no environment variable set. A table created
// by hbkit is written by gohbase and read back by hbkit, and the other
// way round; then the SMS store over each client reads what the store
// over the other wrote. (Before hbkit's protos were renamed, this binary
// panicked at init, and with GOLANG_PROTOBUF_REGISTRATION_CONFLICT=warn
// gohbase's calls hung.)
func TestIntegrationInterop(t *testing.T) {
	if v, ok := os.LookupEnv(protobufConflictEnv); ok {
		t.Fatalf("%s=%q is set; this test proves the binary works without it", protobufConflictEnv, v)
	}
	native := nativeClient(t)
	gc, _ := gohbaseClients(t)
	ctx := itCtx(t, 5*time.Minute)

	name := itNames("interop")
	if err := native.CreateTable(ctx, hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{{Name: "cf"}}},
		[][]byte{[]byte("m")}); err != nil {
		t.Fatalf("native CreateTable: %v", err)
	}
	dropLater(t, native, name)
	row := func(who string, i int) string { return fmt.Sprintf("%s-%02d", who, i) } // "g-.." < "m" < "n-.."
	value := func(who string, i int) []byte { return []byte{byte(i), 0xff, 0x00, who[0]} }

	// gohbase writes, hbkit reads.
	for i := range 10 {
		p, err := hrpc.NewPutStr(ctx, name, row("g", i), map[string]map[string][]byte{"cf": {"q": value("g", i), "w": []byte("gohbase")}},
			hrpc.TimestampUint64(uint64(1000+i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gc.Put(p); err != nil {
			t.Fatalf("gohbase Put: %v", err)
		}
	}
	for i := range 10 {
		r, err := native.Get(ctx, &hbase.Get{Table: name, Row: []byte(row("g", i))})
		if err != nil {
			t.Fatalf("native Get: %v", err)
		}
		c, ok := r.Latest([]byte("cf"), []byte("q"))
		if !ok || !bytes.Equal(c.Value, value("g", i)) || c.Timestamp != int64(1000+i) || string(r.Value([]byte("cf"), []byte("w"))) != "gohbase" {
			t.Errorf("native Get(%s) = %+v, want cf:q=%x at %d and cf:w=gohbase", row("g", i), r.Cells, value("g", i), 1000+i)
		}
	}
	var rows []string
	for r, err := range hbase.ScanAll(ctx, native, &hbase.Scan{Table: name, StartRow: []byte("g-"), StopRow: []byte("g.")}) {
		if err != nil {
			t.Fatalf("native Scan: %v", err)
		}
		rows = append(rows, string(r.Row()))
	}
	if len(rows) != 10 || rows[0] != row("g", 0) || rows[9] != row("g", 9) {
		t.Errorf("native Scan of gohbase's rows = %v, want g-00..g-09", rows)
	}

	// hbkit writes, gohbase reads (rows on both sides of the split).
	var puts []hbase.Action
	for i := range 10 {
		puts = append(puts, &hbase.Put{Table: name, Row: []byte(row("n", i)), Timestamp: int64(2000 + i),
			Values: map[string]map[string][]byte{"cf": {"q": value("n", i), "w": []byte("hbkit")}}})
	}
	if _, err := native.Batch(ctx, puts); err != nil {
		t.Fatalf("native Batch: %v", err)
	}
	for i := range 10 {
		g, err := hrpc.NewGetStr(ctx, name, row("n", i))
		if err != nil {
			t.Fatal(err)
		}
		r, err := gc.Get(g)
		if err != nil {
			t.Fatalf("gohbase Get: %v", err)
		}
		got := map[string][]byte{}
		for _, c := range r.Cells {
			got[string(c.Qualifier)] = c.Value
			if *c.Timestamp != uint64(2000+i) {
				t.Errorf("gohbase Get(%s): %s at %d, want %d", row("n", i), c.Qualifier, *c.Timestamp, 2000+i)
			}
		}
		if !bytes.Equal(got["q"], value("n", i)) || string(got["w"]) != "hbkit" {
			t.Errorf("gohbase Get(%s) = %q, want cf:q=%x and cf:w=hbkit", row("n", i), got, value("n", i))
		}
	}
	scan, err := hrpc.NewScanStr(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	sc := gc.Scan(scan)
	rows = rows[:0]
	for {
		r, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("gohbase Scan: %v", err)
		}
		rows = append(rows, string(r.Cells[0].Row))
	}
	if len(rows) != 20 || !slices.IsSorted(rows) || rows[0] != row("g", 0) || rows[19] != row("n", 9) {
		t.Errorf("gohbase Scan = %v, want g-00..g-09 n-00..n-09", rows)
	}
}

// TestIntegrationInteropSMS: the SMS store over hbkit's native client and
// the SMS store over the adapter share the tables; each reads, through
// its own client, the messages the other inserted, and the index stays
// clean.
func TestIntegrationInteropSMS(t *testing.T) {
	native := nativeClient(t)
	c := adapter(t)
	tables := smsTables(t, c)
	overNative, err := seedstore.NewSMS(native, tables)
	if err != nil {
		t.Fatal(err)
	}
	overGohbase, err := seedstore.NewSMS(c, tables)
	if err != nil {
		t.Fatal(err)
	}
	ctx := itCtx(t, 5*time.Minute)
	var fromNative, fromGohbase []*seeds.SMS
	for n := range 12 {
		fromNative = append(fromNative, msg(n, "acme", time.Duration(n)*time.Minute))
		fromGohbase = append(fromGohbase, msg(100+n, "acme", time.Duration(n)*time.Minute+30*time.Second))
	}
	if errs, err := overNative.InsertBatch(ctx, fromNative); err != nil {
		t.Fatalf("InsertBatch over hbkit: %v (%v)", err, errs)
	}
	if errs, err := overGohbase.InsertBatch(ctx, fromGohbase); err != nil {
		t.Fatalf("InsertBatch over gohbase: %v (%v)", err, errs)
	}
	all := append(slices.Clone(fromNative), fromGohbase...)
	slices.SortFunc(all, func(a, b *seeds.SMS) int { return b.SentAt.Compare(a.SentAt) })
	var want []string
	for _, m := range all {
		want = append(want, m.Mobile)
	}
	for who, s := range map[string]*seedstore.SMSRepo{"hbkit": overNative, "gohbase": overGohbase} {
		got, err := s.MessagesOfAccountOnDate(ctx, "acme", day0)
		if err != nil {
			t.Fatalf("over %s: %v", who, err)
		}
		if !slices.Equal(mobiles(got), want) {
			t.Errorf("MessagesOfAccountOnDate over %s = %v, want %v", who, mobiles(got), want)
		}
		for _, m := range all {
			if got, ok, err := s.Get(ctx, m); err != nil || !ok || *got != *m {
				t.Errorf("Get(%s) over %s = %+v, %v, %v; want %+v", m.Mobile, who, got, ok, err, m)
			}
		}
	}
	// A message inserted through one client is refused through the other.
	if err := overGohbase.Insert(ctx, fromNative[0]); !errors.Is(err, dao.ErrExists) {
		t.Errorf("Insert over gohbase of a message inserted over hbkit = %v, want dao.ErrExists", err)
	}
	if err := overNative.Delete(ctx, fromGohbase[0]); err != nil {
		t.Fatalf("Delete over hbkit: %v", err)
	}
	if _, ok, err := overGohbase.Get(ctx, fromGohbase[0]); err != nil || ok {
		t.Errorf("Get over gohbase after a delete over hbkit = %v, %v; want absent", ok, err)
	}
	assertClean(t, overGohbase, int64(len(all)-1))
}
