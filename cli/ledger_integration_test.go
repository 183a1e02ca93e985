//go:build integration

package cli

import (
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/internal/ittest"
)

// TestIntegrationIndexOwnDocument is the ledger scenario (ledgerScenario)
// on the HBase under test (HBKIT_ZK): a schema document written at run
// time, tables created from it, rows loaded through a Go store, the
// indexes damaged, and hbkit index verify, repair, get and scan run from
// the document stored with the table alone, in the default namespace and
// in one of the test's own.
//
//	HBKIT_ZK=127.0.0.1:2281 go test -tags integration -run TestIntegrationIndexOwnDocument ./cli/
func TestIntegrationIndexOwnDocument(t *testing.T) {
	c := ittest.Connect(t)
	suffix := strconv.FormatInt(time.Now().UnixNano()/1e6, 36)
	for _, name := range []string{"cli_ledger_" + suffix, "cli_ns_" + suffix + ":ledger"} {
		t.Run(name, func(t *testing.T) {
			ittest.DropLater(t, name, name+"_by_status", name+"_by_ref")
			ledgerScenario(t, c, name)
		})
	}
}
