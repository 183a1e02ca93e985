//go:build integration

package admin_test

import "testing"

// TestIntegrationIndexTablesAndState runs ordersScenario against HBase:
// the index table is created, checked and dropped with its data table,
// and starts active or building as its data table is empty or not; the
// state is a table attribute HBase keeps.
func TestIntegrationIndexTablesAndState(t *testing.T) {
	ordersScenario(t, realClient(t), "admin_it_orders_"+runSuffix)
}
