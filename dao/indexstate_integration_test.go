//go:build integration

package dao_test

import (
	"testing"

	"github.com/hbkit/hbkit/internal/ittest"
)

// TestIntegrationIndexBuildOverRows runs buildScenario (issue 33, item 2)
// against HBase: a parcels table holding rows gains an index, which
// EnsureTables reports as needing building and readers refuse with
// ErrIndexBuilding until BuildIndex, run while a writer keeps writing,
// has filled it; then Find and Count answer every record and Check is
// clean.
func TestIntegrationIndexBuildOverRows(t *testing.T) {
	c := itClient(t)
	data, ix := itNames("parcels"), itNames("parcels_by_color")
	ittest.DropLater(t, data, ix)
	buildScenario(t, c, map[string]string{"parcels": data, "parcels_by_color": ix})
}
