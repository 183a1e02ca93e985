//go:build integration

package dao_test

import (
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
)

// Index.Count and CountRanges on a table keyed by UIDs translate the names
// of their queries into ids, on HBase.
func TestIntegrationUIDIndexCount(t *testing.T) {
	c := itClient(t)
	types, err := seeds.LogTypes()
	if err != nil {
		t.Fatal(err)
	}
	u, err := dao.NewUIDs(c, itTableNamed(t, c, types, uidNames(seeds.LogTypesName)), logKinds)
	if err != nil {
		t.Fatal(err)
	}
	tbl := uidIndexedLog(t)
	ix, _ := tbl.Index(uidIndexName)
	names := map[string]string{
		tbl.Name().String(): itTableNamed(t, c, tbl, uidNames("log_indexed")),
		uidIndexName:        itTableNamed(t, c, ix, uidNames("log_by_event")),
	}
	checkUIDIndexCounts(t, c, u, dao.WithTableNames(names))
}
