//go:build integration

package hbase_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// TestIntegrationServerCellLimit pins what HBase itself refuses, the
// client's own check turned off (WithMaxCellSize(0)): with its default
// hbase.server.keyvalue.maxsize, a cell of hbase.DefaultMaxCellSize bytes
// as hbase.CellSize counts it is written and one of a byte more is
// refused; the refusal, which quotes the cell and its row, reaches the
// caller as ErrCellTooLarge, not retryable, without the row.
func TestIntegrationServerCellLimit(t *testing.T) {
	c := itClient(t, hbase.WithMaxCellSize(0))
	tbl := itTable(t, c, "cell_limit", nil)
	ctx := itCtx(t, 2*time.Minute)
	const row = "+4915112345678"
	sized := func(n int) map[string]map[string][]byte {
		return map[string]map[string][]byte{"cf": {"q": make([]byte, n-hbase.CellSize([]byte(row), "cf", "q", nil))}}
	}
	if err := c.Put(ctx, &hbase.Put{Table: tbl, Row: []byte(row), Values: sized(hbase.DefaultMaxCellSize)}); err != nil {
		t.Fatalf("HBase refused a cell of DefaultMaxCellSize bytes: %v", err)
	}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, hbase.ErrCellTooLarge) || hbase.IsRetryable(err) {
			t.Errorf("%s: error %v: want ErrCellTooLarge, not retryable", what, err)
		}
		if err != nil && strings.Contains(err.Error(), row) {
			t.Errorf("%s: error %q quotes the row key", what, err)
		}
	}
	err := c.Put(ctx, &hbase.Put{Table: tbl, Row: []byte(row), Values: sized(hbase.DefaultMaxCellSize + 1)})
	check("Put one byte over", err)
	t.Logf("HBase's refusal, as the caller sees it: %v", err)
	res, err := c.Batch(ctx, []hbase.Action{
		&hbase.Put{Table: tbl, Row: []byte(row), Values: sized(hbase.DefaultMaxCellSize + 1)},
		&hbase.Put{Table: tbl, Row: []byte("small"), Values: sized(100)},
	})
	if err == nil || len(res) != 2 || res[1].Err != nil {
		t.Fatalf("Batch = %v, %+v: want action 0 refused, 1 written", err, res)
	}
	check("Batch one byte over", res[0].Err)
	check("Batch error", err)
}
