//go:build integration

package dao_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
)

// TestIntegrationPutBatchLargeRecords writes 50 records of 3 MB in one
// PutBatch, as the batch that took a region server down (issue 33, item
// 6): every record is acknowledged or fails with a typed error, every
// acknowledged one reads back whole, and the server still answers
// afterwards (and, with HBKIT_STATE naming its state directory, its JVM
// is alive).
func TestIntegrationPutBatchLargeRecords(t *testing.T) {
	c := itClient(t)
	tbl := blobTable(t, "blobs")
	name := itTable(t, c, tbl)
	r, err := dao.New(c, tbl, dao.WithTableNames(map[string]string{tbl.Name().String(): name}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const n, size = 50, 3 << 20
	recs := make([]*blob, n)
	for i := range recs {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		recs[i] = &blob{ID: fmt.Sprintf("blob-%03d", i), Payload: p}
	}
	start := time.Now()
	results, err := r.PutBatch(ctx, recs)
	t.Logf("PutBatch of %d x %d bytes: %v, %v", n, size, time.Since(start).Round(time.Millisecond), err)
	acked := 0
	for i, e := range results {
		switch {
		case e == nil:
			acked++
		case !typed(e):
			t.Errorf("record %d failed with an untyped error: %v", i, e)
		default:
			t.Logf("record %d failed: %v", i, e)
		}
	}
	if err != nil && !typed(err) {
		t.Errorf("PutBatch error is untyped: %v", err)
	}
	// The server still answers, and every acknowledged record is there.
	for i, rec := range recs {
		got, ok, err := r.Get(ctx, &blob{ID: rec.ID})
		switch {
		case err != nil:
			t.Fatalf("Get %s after the batch: %v", rec.ID, err)
		case results[i] == nil && (!ok || !bytes.Equal(got.Payload, rec.Payload)):
			t.Errorf("record %d acknowledged but reads back found=%v", i, ok)
		}
	}
	count := 0
	for _, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: name, Filter: &hbase.KeyOnlyFilter{}}) {
		if err != nil {
			t.Fatalf("scan after the batch: %v", err)
		}
		count++
	}
	if count < acked {
		t.Errorf("scan found %d rows, %d records acknowledged", count, acked)
	}
	if acked != n {
		t.Errorf("%d of %d records acknowledged", acked, n)
	}
	checkJVMAlive(t)
}

// typed reports whether err is one a caller can act on: a validation
// error, a batch error, or an hbase error with a retry verdict.
func typed(err error) bool {
	var ve *dao.ValidationError
	var re *hbase.RemoteError
	var ie *hbase.InvalidRequestError
	return errors.As(err, &ve) || errors.As(err, &re) || errors.As(err, &ie) ||
		errors.Is(err, hbase.ErrTimeout) || errors.Is(err, hbase.ErrOutcomeUnknown) || hbase.IsRetryable(err)
}

// checkJVMAlive checks, when HBKIT_STATE names the state directory of the
// HBase under test, that the JVM its hbase.pid names still runs.
func checkJVMAlive(t *testing.T) {
	t.Helper()
	state := os.Getenv("HBKIT_STATE")
	if state == "" {
		t.Log("HBKIT_STATE not set: the JVM was not checked, only that the server answers")
		return
	}
	b, err := os.ReadFile(filepath.Join(state, "hbase.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("HBase JVM %d is gone: %v", pid, err)
	}
	if f := strings.Fields(string(stat)); len(f) > 2 && (f[2] == "Z" || f[2] == "X") {
		t.Fatalf("HBase JVM %d is dead (state %s)", pid, f[2])
	}
	t.Logf("HBase JVM %d alive", pid)
}
