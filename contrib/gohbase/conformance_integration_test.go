//go:build integration

package gohbase_test

import (
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase/conformance"
)

// TestIntegrationConformance runs hbkit's client conformance suite
// against the adapter on a real HBase: everything the adapter claims
// passes; what gohbase lacks is skipped with the reason.
func TestIntegrationConformance(t *testing.T) {
	c := adapter(t)
	conformance.Run(t, conformance.Harness{
		Data:         c,
		Admin:        c,
		NewTableName: conformance.NameGenerator("itgohbase"),
		Timeout:      3 * time.Minute,
		Unsupported: map[conformance.Capability]string{
			conformance.ScanBatch:     "gohbase's Scan has no batch size",
			conformance.CellSizeLimit: "gohbase checks no cell size before sending",
			conformance.FullAdmin: "gohbase's AdminClient has no namespace calls, DescribeTable, ModifyTable, TruncateTable or SplitRegion, " +
				"and reaches tables of the default namespace only (TestIntegrationAdmin covers the rest)",
		},
	})
}
