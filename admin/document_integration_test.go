//go:build integration

package admin_test

import "testing"

// TestIntegrationDocument runs documentScenario against HBase: the schema
// document is a table attribute HBase keeps, read back equal, and a
// changed declaration is drift.
func TestIntegrationDocument(t *testing.T) {
	c := realClient(t)
	name := "admin_it_doc_" + runSuffix
	t.Cleanup(func() {
		dropQuietly(t, c, name)
		dropQuietly(t, c, name+"_by_status")
	})
	documentScenario(t, c, name)
}
