//go:build integration

package index_test

import (
	"context"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/ittest"
)

// The protocol against a real HBase (make hbase-up). HBKIT_ZK names the
// ZooKeeper quorum (default 127.0.0.1:2181). Every test creates its own
// run-unique pair of tables and drops them at the end.
//
//	go test -tags integration -run Integration -bench Integration -benchtime 3x ./index/

var itSeq atomic.Int64

// itBackend connects to the cluster and creates a fresh pair of SMS tables.
func itBackend(tb testing.TB) (backend, *hbase.Client) {
	tb.Helper()
	c := itConnect(tb)
	return itTables(tb, c), c
}

// itConnect connects to the cluster at HBKIT_ZK with the given client
// options; the client is closed when tb ends.
func itConnect(tb testing.TB, opts ...hbase.Option) *hbase.Client {
	tb.Helper()
	return ittest.Connect(tb, opts...)
}

// itTables creates a fresh, run-unique pair of SMS tables through c, and
// drops them when tb ends.
func itTables(tb testing.TB, c *hbase.Client) backend {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36) + "_" + strconv.FormatInt(itSeq.Add(1), 10)
	b := backend{c: c, data: "hbkit_it_sms_" + run, index: "hbkit_it_sms_index_" + run}
	itDropLater(tb, b.data, b.index)
	if err := createSMSTables(ctx, c, b.data, b.index); err != nil {
		tb.Fatalf("create tables: %v", err)
	}
	return b
}

// itDropLater drops tables when tb ends, in the background (see ittest).
func itDropLater(tb testing.TB, tables ...string) { ittest.DropLater(tb, tables...) }

func TestMain(m *testing.M) { os.Exit(ittest.Main(m)) }

func TestIntegrationKillBetweenWrites(t *testing.T) {
	b, _ := itBackend(t)
	testKillBetweenWrites(t, b)
}

func TestIntegrationConcurrentWritersAndDeletes(t *testing.T) {
	b, _ := itBackend(t)
	testConcurrentWriters(t, b, 4, 12)
}

func TestIntegrationQueries(t *testing.T) {
	b, _ := itBackend(t)
	testPutQueryCount(t, b)
	testUpdateMovesEntryAndDeleteRemovesIt(t, b)
	testDeleteThenRewriteAtOnce(t, b)
}

func BenchmarkIntegrationPut(bm *testing.B) {
	b, c := itBackend(bm)
	run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36)
	plain, plainIx := "hbkit_it_sms_plain_"+run, "hbkit_it_sms_plain_index_"+run
	itDropLater(bm, plain, plainIx)
	if err := createSMSTables(context.Background(), c, plain, plainIx); err != nil {
		bm.Fatal(err)
	}
	for _, n := range []int{1, 100} {
		bm.Run("batch="+strconv.Itoa(n), func(bm *testing.B) { benchPut(bm, b, plain, plainIx, n) })
	}
}

func BenchmarkIntegrationQuery(bm *testing.B) {
	b, _ := itBackend(bm)
	benchQuery(bm, b)
}
