package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/jobs"
)

// rowCountTask counts the rows of a unit, a batch of 10 at a time: the
// Task of the command's tests (the index and copy tasks have their own).
type rowCountTask struct {
	c     hbase.DataClient
	table string
}

func (t rowCountTask) Sources() []string { return []string{t.table} }

func (t rowCountTask) Run(ctx context.Context, u jobs.Unit, after []byte, commit func([]byte, jobs.Counts) error) error {
	start := u.Start
	if after != nil {
		start = append(bytes.Clone(after), 0)
	}
	n, last := int64(0), []byte(nil)
	for r, err := range hbase.ScanAll(ctx, t.c, &hbase.Scan{Table: u.Table, StartRow: start, StopRow: u.Stop}) {
		if err != nil {
			return err
		}
		n, last = n+1, bytes.Clone(r.Row())
		if n == 10 {
			if err := commit(last, jobs.Counts{"rows": n}); err != nil {
				return err
			}
			n = 0
		}
	}
	if n > 0 {
		return commit(last, jobs.Counts{"rows": n})
	}
	return nil
}

// jobEnv is a fake HBase with a table "crates" of n rows in three
// regions, and the Env of the job command over it.
func jobEnv(t *testing.T, n int, env map[string]string) (func(args ...string) (int, string, string), *fake.Client) {
	t.Helper()
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	desc := hbase.TableDescriptor{Name: "crates", Families: []hbase.FamilyDescriptor{{Name: "c"}}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("crate-3"), []byte("crate-6")}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := &hbase.Put{Table: "crates", Row: fmt.Appendf(nil, "crate-%04d", i*10000/n), Values: map[string]map[string][]byte{"c": {"w": []byte("1")}}}
		if err := c.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(context.Context, string) (jobClient, io.Closer, error) { return c, regionsNopCloser{}, nil }
	newTask := func(_ context.Context, jc jobs.Client, spec jobs.Spec) (jobs.Task, error) {
		return rowCountTask{c: jc, table: spec.Table}, nil
	}
	run := func(args ...string) (int, string, string) {
		var out, errw bytes.Buffer
		e := &Env{Stdout: &out, Stderr: &errw, Getenv: func(k string) string { return env[k] }}
		err := runJobWith(ctx, e, args, connect, newTask)
		code := 0
		switch {
		case errors.Is(err, ErrUsage):
			code = 2
		case err != nil:
			code = 1
			fmt.Fprintln(&errw, err)
		}
		return code, out.String(), errw.String()
	}
	return run, c
}

func TestJobRunStatusPlan(t *testing.T) {
	run, _ := jobEnv(t, 300, nil)
	job := []string{"--kind", "copy", "--table", "crates", "--target", "crates2"}
	code, out, errw := run(append([]string{"plan"}, job...)...)
	if code != 0 || !strings.Contains(out, "3 units (not stored") || !strings.Contains(out, `u000001 crates ["crate-3", "crate-6")`) {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errw)
	}
	code, out, errw = run(append([]string{"run", "--json", "--progress", "json", "--workers", "2", "--units-per-region", "2"}, job...)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errw)
	}
	var r jobs.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	if !r.Complete || !r.Finished || r.Rows != 300 || r.Units != 6 {
		t.Errorf("run report: %+v; want 300 rows in 6 units, complete", r)
	}
	lines := strings.Split(strings.TrimSpace(errw), "\n")
	var last jobs.Progress
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || !last.Done || last.Rows != 300 {
		t.Errorf("last progress line %q: %+v, %v", lines[len(lines)-1], last, err)
	}
	code, out, errw = run(append([]string{"status"}, job...)...)
	if code != 0 || !strings.Contains(out, "units        6/6 done") || !strings.Contains(out, "rows         300") {
		t.Errorf("status: exit %d\n%s%s", code, out, errw)
	}
	code, out, _ = run(append([]string{"plan"}, job...)...)
	if code != 0 || !strings.Contains(out, "6 units (stored in hbkit_jobs)") {
		t.Errorf("plan after run: exit %d\n%s", code, out)
	}
	if code, _, errw := run(append([]string{"reset"}, job...)...); code != 2 || !strings.Contains(errw, "needs --yes") {
		t.Errorf("reset without --yes: exit %d, %q", code, errw)
	}
	code, out, errw = run(append([]string{"reset", "--yes"}, job...)...)
	if code != 0 || !strings.Contains(out, "plan and checkpoints deleted") {
		t.Errorf("reset --yes: exit %d\n%s%s", code, out, errw)
	}
	code, out, _ = run(append([]string{"plan"}, job...)...)
	if code != 0 || !strings.Contains(out, "3 units (not stored") {
		t.Errorf("plan after reset: exit %d\n%s", code, out)
	}
}

// TestJobShards: two processes, one given --shard 0/2, the other the
// index of a Kubernetes Indexed Job (JOB_COMPLETION_INDEX=1, --shards 2).
func TestJobShards(t *testing.T) {
	run, c := jobEnv(t, 200, nil)
	job := []string{"--kind", "copy", "--table", "crates", "--target", "crates2", "--progress", "none"}
	code, out, errw := run(append([]string{"run", "--shard", "0/2"}, job...)...)
	if code != 0 || !strings.Contains(out, "(shard 0/2)") || !strings.Contains(out, "units        2/3 done") || !strings.Contains(out, "complete     false") {
		t.Fatalf("shard 0/2: exit %d\n%s%s", code, out, errw)
	}
	ctx := context.Background()
	var out2, errw2 bytes.Buffer
	e := &Env{Stdout: &out2, Stderr: &errw2, Getenv: func(k string) string { return map[string]string{"JOB_COMPLETION_INDEX": "1"}[k] }}
	connect := func(context.Context, string) (jobClient, io.Closer, error) { return c, regionsNopCloser{}, nil }
	newTask := func(_ context.Context, jc jobs.Client, spec jobs.Spec) (jobs.Task, error) {
		return rowCountTask{c: jc, table: spec.Table}, nil
	}
	if err := runJobWith(ctx, e, append([]string{"run", "--shards", "2"}, job...), connect, newTask); err != nil {
		t.Fatalf("JOB_COMPLETION_INDEX=1 --shards 2: %v\n%s", err, errw2.String())
	}
	if s := out2.String(); !strings.Contains(s, "(shard 1/2)") || !strings.Contains(s, "complete     true") || !strings.Contains(s, "rows         200") {
		t.Errorf("shard 1/2:\n%s", s)
	}
}

func TestJobUsageErrors(t *testing.T) {
	run, _ := jobEnv(t, 1, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown subcommand "nope"`},
		{[]string{"run", "--table", "t"}, "--kind K and --table T"},
		{[]string{"run", "--kind", "paint", "--table", "t"}, `--kind "paint"`},
		{[]string{"run", "--kind", "copy", "--table", "t", "--shard", "2/2"}, "--shard"},
		{[]string{"run", "--kind", "copy", "--table", "t", "--shards", "2"}, "JOB_COMPLETION_INDEX"},
		{[]string{"run", "--kind", "copy", "--table", "t", "--progress", "loud"}, "--progress"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errw := run(tc.args...)
			if code != 2 || !strings.Contains(errw, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errw, tc.want)
			}
		})
	}
	if code, _, errw := run("status", "--kind", "copy", "--table", "crates"); code != 1 || !strings.Contains(errw, "has not run") {
		t.Errorf("status of a job never run: exit %d, %q", code, errw)
	}
}
