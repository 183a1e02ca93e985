//go:build integration

package dao_test

import (
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

// TestIntegrationReadsReturnEachRecordOnce runs
// testReadsReturnEachRecordOnce on HBase, with tables of their own per
// write mode.
func TestIntegrationReadsReturnEachRecordOnce(t *testing.T) {
	testReadsReturnEachRecordOnce(t, func(t *testing.T, _ schema.WriteMode) moveBackend {
		c := itClient(t)
		return moveBackend{c: c, opts: []dao.Option{itTables(t, c, ordersTable(t))}}
	})
}

// TestIntegrationInsertOnlyRefusesRewrites runs
// testInsertOnlyRefusesRewrites on HBase.
func TestIntegrationInsertOnlyRefusesRewrites(t *testing.T) {
	testInsertOnlyRefusesRewrites(t, func(t *testing.T, tbl *schema.Table[ShopOrder]) moveBackend {
		c := itClient(t)
		return moveBackend{c: c, opts: []dao.Option{itTables(t, c, tbl)}}
	})
}

// TestIntegrationWhereOnHashLedDataKey runs testWhereOnHashLedDataKey on
// HBase, the feed table pre-split in 8 regions.
func TestIntegrationWhereOnHashLedDataKey(t *testing.T) {
	c := itClient(t)
	tbl := feedTable(t, "feed_where")
	testWhereOnHashLedDataKey(t, tbl, moveBackend{c: c, opts: []dao.Option{itTables(t, c, tbl)}})
}
