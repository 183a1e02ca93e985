package clitest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// IndexTables runs issue 33's items 10 and 2 through the table and index
// commands, in a run-unique namespace: "table create --schema sms"
// creates sms_index with sms, describe and drop take it along; an index
// table created over a data table holding rows is reported as needing
// building, "index build" builds it while it is refused to readers, and
// then create reports it unchanged and verify finds nothing missing. It
// needs DescribeTable and ModifyTable (skipped otherwise).
func IndexTables(t *testing.T, h Harness) {
	if h.Unsupported["DescribeTable"] {
		t.Skip("the index state lives in the table descriptor")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c := h.client(ctx, t)
	ns := h.name("ns")
	data, ix := ns+":sms", ns+":sms_index"
	table := func(args ...string) []string {
		return append(append([]string{"table"}, args...), "--schema", "sms", "--namespace", ns, "--zk", h.zk())
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		h.main(ctx, table("drop", "--yes")...)
		_ = c.DeleteNamespace(ctx, ns)
	})
	want := func(r result, out string) {
		t.Helper()
		if r.code != 0 || !strings.HasPrefix(r.stdout, out) {
			t.Fatalf("exit %d, printed %q, want %q\n%s", r.code, r.stdout, out, r.stderr)
		}
	}
	want(h.main(ctx, table("create")...), data+": created\n"+ix+": created\n")
	want(h.main(ctx, table("ensure")...), data+": unchanged\n"+ix+": unchanged\n")
	r := h.mustMain(ctx, t, table("describe")...)
	if !strings.Contains(r.stdout, "table "+data+": enabled, 20 regions") || !strings.Contains(r.stdout, "table "+ix+": enabled, 10 regions") ||
		strings.Count(r.stdout, "drift: none") != 2 {
		t.Errorf("describe --schema sms:\n%s", r.stdout)
	}
	want(h.main(ctx, table("drop", "--yes")...), data+": dropped\n"+ix+": dropped\n")

	// The data table alone, written without the index, then the index.
	want(h.main(ctx, "table", "create", "--schema", "sms", "--namespace", ns, "--zk", h.zk()), data+": created\n")
	h.mustMain(ctx, t, "table", "drop", "--schema", "sms_index", "--namespace", ns, "--zk", h.zk(), "--yes")
	names := dao.WithTableNames(map[string]string{seeds.SMSTableName: data, seeds.SMSIndexTableName: ix})
	old, err := seedstore.NewSMS(c, names, dao.WithUnindexedWrites())
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	for i := range n {
		m := &seeds.SMS{Mobile: fmt.Sprintf("1360000%04d", i), SentAt: time.Date(2026, 11, 27, 9, 0, i, 0, time.UTC), Account: "acct", Content: "hi"}
		if err := old.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	want(h.main(ctx, table("create")...), data+": unchanged\n"+ix+": needs building\n")
	if r := h.mustMain(ctx, t, "table", "describe", "--schema", "sms_index", "--namespace", ns, "--zk", h.zk()); !strings.Contains(r.stdout, "attribute hbkit.index.state=building") {
		t.Errorf("describe does not show the state:\n%s", r.stdout)
	}
	rename := []string{"--schema", "sms", "--rename", "sms=" + data + ",sms_index=" + ix, "--zk", h.zk()}
	r = h.mustMain(ctx, t, append([]string{"index", "build"}, rename...)...)
	if !strings.Contains(r.stdout, fmt.Sprintf("missing      %d", n)) {
		t.Errorf("index build:\n%s", r.stdout)
	}
	want(h.main(ctx, table("ensure")...), data+": unchanged\n"+ix+": unchanged\n")
	if r := h.mustMain(ctx, t, append([]string{"index", "verify"}, rename...)...); !strings.Contains(r.stdout, "missing      0") {
		t.Errorf("verify after the build:\n%s", r.stdout)
	}
}
