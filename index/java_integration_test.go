//go:build integration

package index_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// Rows and entries written by HBase's own Java client following seed 000
// (tools/javaclient: plain Puts, no version or status cells), checked
// through this package's readers, Check and the hbkit command:
//
//	HBKIT_ZK=127.0.0.1:2181 go test -race -tags integration -run JavaClient -v ./index/
//
// The first run builds SeedWriter with Maven, resolving hbase-client from
// Maven Central.

// javaMsg is one message SeedWriter wrote, and how.
type javaMsg struct {
	kind string // ok, stale (entry with the wrong delivered flag), orphan (no data row) or missing (no entry)
	m    *seeds.SMS
}

func needJava(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"mvn", "java", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipped: building and running tools/javaclient (HBase's Java client) needs %s: %v", tool, err)
		}
	}
}

// runSeedWriter runs tools/javaclient/run.sh on b's tables and returns the
// messages it reports writing.
func runSeedWriter(t *testing.T, b backend, args ...string) []javaMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join("..", "tools", "javaclient", "run.sh"),
		"--zk", ittest.ZK(), "--data", b.data, "--index", b.index}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("SeedWriter %v: %v\nstderr:\n%s", args, err, stderr.String())
	}
	var out []javaMsg
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 7 {
			t.Fatalf("SeedWriter printed %q", sc.Text())
		}
		ms, err1 := strconv.ParseInt(f[2], 10, 64)
		seq, err2 := strconv.ParseUint(f[3], 10, 16)
		delivered, err3 := strconv.ParseBool(f[5])
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatalf("SeedWriter printed %q: %v", sc.Text(), err)
		}
		out = append(out, javaMsg{kind: f[0], m: &seeds.SMS{
			Mobile: f[1], SentAt: time.UnixMilli(ms).UTC(), Seq: seq, Account: f[4], Delivered: delivered, Content: f[6],
		}})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// hbkitCmd builds cmd/hbkit once per test.
func hbkitCmd(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building cmd/hbkit: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "hbkit")
	if out, err := exec.Command(gobin, "build", "-o", bin, "../cmd/hbkit").CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/hbkit: %v\n%s", err, out)
	}
	return bin
}

// hbkitIndex runs `hbkit index verb` on b's tables, logs its output, and
// returns its exit status.
func hbkitIndex(t *testing.T, bin string, b backend, verb string) int {
	t.Helper()
	cmd := exec.Command(bin, "index", verb, "--schema", "sms", "--zk", ittest.ZK(),
		"--rename", seeds.SMSTableName+"="+b.data+","+seeds.SMSIndexTableName+"="+b.index)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("$ hbkit index %s --schema sms --rename sms=%s,sms_index=%s\n%s", verb, b.data, b.index, stdout.String())
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatalf("hbkit index %s: %v\n%s", verb, err, stderr.String())
	return -1
}

// smsStore is the SMS store on b's tables with the schema's own write
// mode (insert-only), as applications and hbkit open it.
func smsStore(t *testing.T, b backend, opts ...dao.Option) *seedstore.SMSRepo {
	t.Helper()
	s, err := seedstore.NewSMS(b.c, append([]dao.Option{dao.WithTableNames(b.names())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func split(msgs []javaMsg) (all, withData, indexed []*seeds.SMS) {
	for _, jm := range msgs {
		all = append(all, jm.m)
		if jm.kind != "orphan" {
			withData = append(withData, jm.m)
		}
		if jm.kind == "ok" || jm.kind == "stale" {
			indexed = append(indexed, jm.m)
		}
	}
	return all, withData, indexed
}

func TestIntegrationJavaClientRows(t *testing.T) {
	needJava(t)
	ctx := context.Background()
	bin := hbkitCmd(t)

	t.Run("agreeing", func(t *testing.T) {
		const n = 300
		b, _ := itBackend(t)
		msgs := runSeedWriter(t, b, "--count", strconv.Itoa(n))
		all, _, _ := split(msgs)
		if len(all) != n {
			t.Fatalf("SeedWriter wrote %d messages, want %d", len(all), n)
		}
		for _, m := range all {
			data, entry := seedKeys(m) // the keys the Java program must have written
			if r, err := b.c.Get(ctx, &hbase.Get{Table: b.data, Row: data}); err != nil || r.Empty() {
				t.Fatalf("data row %q: %v, %v", data, r, err)
			}
			if r, err := b.c.Get(ctx, &hbase.Get{Table: b.index, Row: entry}); err != nil || r.Empty() {
				t.Fatalf("entry %q: %v, %v", entry, r, err)
			}
		}
		dataBefore, indexBefore := rawDump(t, b.c, b.data), rawDump(t, b.c, b.index)
		if code := hbkitIndex(t, bin, b, "verify"); code != 0 {
			t.Fatalf("hbkit index verify exited %d, want 0", code)
		}
		// A store of every write mode reads the rows, and its verify and
		// repair find them agreeing and write nothing (read repair on:
		// reads must not write either).
		for _, mode := range []schema.WriteMode{schema.InsertOnly, schema.Strict, schema.Mutable, schema.VerifyOnRead} {
			s := smsStore(t, b, dao.WithWriteMode(mode))
			assertReaders(t, s, all, all)
			rep, err := s.Check(ctx, index.ModeVerify)
			t.Logf("%v: verify: %+v", mode, rep)
			if err != nil || !rep.Clean() || rep.DataRows != n || rep.Entries != n || rep.Undecodable != 0 {
				t.Fatalf("%v: verify: %+v, %v; want clean with %d rows and entries", mode, rep, err, n)
			}
			rep, err = s.Check(ctx, index.ModeRepair)
			t.Logf("%v: repair: %+v", mode, rep)
			if err != nil || !rep.Clean() || rep.Repaired != 0 || rep.Skipped != 0 {
				t.Fatalf("%v: repair: %+v, %v; want nothing to repair", mode, rep, err)
			}
			assertSameDump(t, mode.String()+": data table", dataBefore, rawDump(t, b.c, b.data))
			assertSameDump(t, mode.String()+": index table", indexBefore, rawDump(t, b.c, b.index))
			assertReaders(t, s, all, all)
		}
		s := smsStore(t, b)

		// Rebuild rewrites everything, taking the rows into the protocol.
		rep, err := s.Check(ctx, index.ModeRebuild)
		t.Logf("rebuild: %+v", rep)
		if err != nil || rep.Repaired != n || rep.Skipped != 0 {
			t.Fatalf("rebuild: %+v, %v; want %d rewritten", rep, err, n)
		}
		rep, err = s.Check(ctx, index.ModeVerify)
		if err != nil || !rep.Clean() || rep.DataRows != n || rep.Entries != n {
			t.Fatalf("verify after rebuild: %+v, %v", rep, err)
		}
		assertReaders(t, s, all, all)
	})

	t.Run("diverging", func(t *testing.T) {
		const n, stale, orphan, missing = 200, 3, 2, 4
		b, _ := itBackend(t)
		msgs := runSeedWriter(t, b, "--count", strconv.Itoa(n), "--stale", strconv.Itoa(stale),
			"--orphan", strconv.Itoa(orphan), "--missing", strconv.Itoa(missing))
		_, withData, indexed := split(msgs)
		dataBefore := rawDump(t, b.c, b.data)
		// Orphans are deleted once older than the grace period: the Java
		// writer is done.
		s := smsStore(t, b, dao.WithGracePeriod(time.Millisecond))
		time.Sleep(10 * time.Millisecond)

		// Readers skip the divergences (read repair off: it would delete
		// the orphans before verify counts them).
		assertReaders(t, smsStore(t, b, dao.WithReadRepair(false)), withData, indexed)
		rep, err := s.Check(ctx, index.ModeVerify)
		t.Logf("verify: %+v", rep)
		want := index.Report{DataRows: n + missing, Entries: n + orphan, Missing: missing, Stale: stale, Orphaned: orphan}
		if err != nil || rep != want {
			t.Fatalf("verify: %+v, %v; want %+v", rep, err, want)
		}
		if code := hbkitIndex(t, bin, b, "verify"); code != 1 {
			t.Fatalf("hbkit index verify exited %d, want 1 (diverged)", code)
		}
		rep, err = s.Check(ctx, index.ModeRepair)
		t.Logf("repair: %+v", rep)
		want.Entries += missing // pass 2 reads the entries pass 1 wrote
		want.Repaired = missing + stale + orphan
		if err != nil || rep != want {
			t.Fatalf("repair: %+v, %v; want %+v", rep, err, want)
		}
		rep, err = s.Check(ctx, index.ModeVerify)
		t.Logf("verify after repair: %+v", rep)
		if want := (index.Report{DataRows: n + missing, Entries: n + missing}); err != nil || rep != want {
			t.Fatalf("verify after repair: %+v, %v; want %+v", rep, err, want)
		}
		if code := hbkitIndex(t, bin, b, "verify"); code != 0 {
			t.Fatalf("hbkit index verify after repair exited %d, want 0", code)
		}
		assertSameDump(t, "data table", dataBefore, rawDump(t, b.c, b.data))
		assertReaders(t, s, withData, withData)
	})
}
