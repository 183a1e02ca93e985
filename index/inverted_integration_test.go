//go:build integration

package index_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
)

// Seed 001's inverted index on a real HBase:
//
//	HBKIT_ZK=127.0.0.1:2181 go test -tags integration -run IntegrationInverted -v ./index/

// itUserTables creates a run-unique TestTable and its inverted index
// through c, dropped when tb ends.
func itUserTables(tb testing.TB, c *hbase.Client) userBackend {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36) + "_" + strconv.FormatInt(itSeq.Add(1), 10)
	b := userBackend{c: c, data: "hbkit_it_inv_users_" + run, index: "hbkit_it_inv_province_age_" + run}
	itDropLater(tb, b.data, b.index)
	if err := createUserTables(ctx, c, b.data, b.index); err != nil {
		tb.Fatalf("create tables: %v", err)
	}
	return b
}

// TestIntegrationInverted runs, per write mode on a pair of tables of its
// own: inserts, moves and deletes checked against a brute-force scan of
// the data table after every round (Find and Count), concurrent writers
// of one user with deletes racing updates (modes that rewrite), and a
// kill before each phase of each kind of write followed by repair; verify
// is clean after each.
func TestIntegrationInverted(t *testing.T) {
	c := itConnect(t)
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := itUserTables(t, c)
			testInvertedAgreesWithTheData(t, b, mc, "u")
			if mc.rewrite {
				testInvertedConcurrentWriters(t, b, mc.mode, "race", 4, 10)
			}
			testInvertedKillBetweenWrites(t, b, mc, "k")
			rep := assertUsersClean(t, b.users(t, mc.mode))
			t.Logf("verify at the end: %+v", rep)
		})
	}
}

// TestIntegrationInvertedRepair damages the index by hand, reads cells
// as seed 001's Java code writes them (value 1, no status), and refuses
// users with an empty uid (an empty qualifier).
func TestIntegrationInvertedRepair(t *testing.T) {
	c := itConnect(t)
	testInvertedRepairAndRebuild(t, itUserTables(t, c))
	testInvertedForeignCells(t, itUserTables(t, c))
	b := itUserTables(t, c)
	for i, mc := range modeCases {
		t.Run("empty qualifier "+mc.mode.String(), func(t *testing.T) { testInvertedEmptyQualifier(t, b, mc.mode, int64(30+i)) })
	}
}

// TestIntegrationInvertedPages pages through rows of many users, and lists
// them from the index alone.
func TestIntegrationInvertedPages(t *testing.T) {
	c := itConnect(t)
	testInvertedPagesAndKeys(t, itUserTables(t, c))
	testInvertedEqReadsOneRow(t, itUserTables(t, c))
	testInvertedPageResumesInsideTheRow(t, itUserTables(t, c))
}

// TestIntegrationInvertedPartialBatches kills writers inside their
// Batches (testInvertedSurvivePartialBatches) on HBase, one pair of tables
// per write mode.
func TestIntegrationInvertedPartialBatches(t *testing.T) {
	c := itConnect(t)
	bs := map[schema.WriteMode]userBackend{}
	for _, mc := range modeCases {
		bs[mc.mode] = itUserTables(t, c)
	}
	testInvertedSurvivePartialBatches(t, func(_ testing.TB, mode schema.WriteMode) userBackend { return bs[mode] })
}

// TestIntegrationInvertedInserts races inserters of one uid with different
// values, and refuses inserts of a taken uid, on HBase.
func TestIntegrationInvertedInserts(t *testing.T) {
	c := itConnect(t)
	bs := map[schema.WriteMode]userBackend{}
	for _, mc := range modeCases {
		bs[mc.mode] = itUserTables(t, c)
	}
	backends := func(_ testing.TB, mode schema.WriteMode) userBackend { return bs[mode] }
	testInvertedConcurrentInserts(t, backends, 8, 4)
	testInvertedRefusedInsertLeavesTheIndex(t, backends)
}
