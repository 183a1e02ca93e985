//go:build integration

package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/jobs"
)

// TestJobIntegration runs "hbkit job plan", "run" (two processes, one
// per shard) and "status" against the real HBase, with the row-counting
// Task of the command's tests, and logs what each prints (docs/jobs.md
// shows it):
//
//	go test -tags integration -run TestJobIntegration -v ./cli/
func TestJobIntegration(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c := ittest.Connect(t)
	run36 := strconv.FormatInt(time.Now().UnixNano()/1e6, 36)
	table, store := "hbkit_it_crates_"+run36, "hbkit_it_jobs_"+run36
	ittest.DropLater(t, table, store)
	desc := hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{{Name: "c"}}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("crate-3"), []byte("crate-6")}); err != nil {
		t.Fatal(err)
	}
	const n = 30000
	var batch []hbase.Action
	for i := range n {
		batch = append(batch, &hbase.Put{Table: table, Row: fmt.Appendf(nil, "crate-%05d", i*100000/n),
			Values: map[string]map[string][]byte{"c": {"w": []byte("1")}}})
		if len(batch) == 1000 {
			if _, err := c.Batch(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	connect := func(context.Context, string) (jobClient, io.Closer, error) { return c, io.NopCloser(nil), nil }
	newTask := func(_ context.Context, jc jobs.Client, spec jobs.Spec) (jobs.Task, error) {
		return rowCountTask{c: jc, table: spec.Table}, nil
	}
	hbkit := func(args ...string) string {
		var out, errw bytes.Buffer
		e := &Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" }}
		args = append(args, "--kind", "copy", "--table", table, "--target", table+"_copy", "--jobs-table", store)
		err := runJobWith(ctx, e, args, connect, newTask)
		t.Logf("$ hbkit %s\n%s%s", strings.Join(args, " "), errw.String(), out.String())
		if err != nil {
			t.Fatalf("hbkit %s: %v", args[0], err)
		}
		return out.String()
	}
	hbkit("plan", "--units-per-region", "2")
	first := hbkit("run", "--workers", "2", "--units-per-region", "2", "--shard", "0/2")
	second := hbkit("run", "--workers", "2", "--shard", "1/2", "--progress", "json")
	status := hbkit("status")
	if !strings.Contains(first, "complete     false") || !strings.Contains(second, "complete     true") ||
		!strings.Contains(status, "units        6/6 done") || !strings.Contains(status, fmt.Sprintf("rows         %d", n)) {
		t.Errorf("shard 0/2:\n%s\nshard 1/2:\n%s\nstatus:\n%s", first, second, status)
	}
}
