package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

type indexNopCloser struct{}

func (indexNopCloser) Close() error { return nil }

// indexFixture is a fake holding the SMS tables with n indexed messages.
func indexFixture(t *testing.T, n int) *fake.Client {
	t.Helper()
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	st, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	defs := []schema.Definition{st, st.Indexes()[0]}
	for _, d := range defs {
		desc := hbase.TableDescriptor{Name: d.Name().String()}
		for _, f := range d.Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if err := c.CreateTable(ctx, desc, d.SplitKeys()); err != nil {
			t.Fatal(err)
		}
	}
	s, err := seedstore.NewSMS(c)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*seeds.SMS
	for i := range n {
		recs = append(recs, &seeds.SMS{
			Mobile: fmt.Sprintf("1390000%04d", i), SentAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			Seq: uint64(i), Account: "acct", Content: "hi",
		})
	}
	if _, err := s.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil { // the writer is done
		t.Fatal(err)
	}
	return c
}

func runIndexCmd(t *testing.T, c *fake.Client, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errw bytes.Buffer
	e := withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" }})
	err = runIndexWith(context.Background(), e, args, func(ctx context.Context, zk string) (dao.Client, io.Closer, error) {
		if zk != "127.0.0.1:2181" && zk != "zk9:2181" {
			t.Errorf("zk %q", zk)
		}
		return c, indexNopCloser{}, nil
	})
	return out.String(), errw.String(), err
}

// dropEntry deletes one index entry behind the protocol's back, with a
// delete marker at the entry's own timestamp (an accident of the past; a
// marker from the future would hide the repair too, see the index
// package's Limits).
func dropEntry(t *testing.T, c *fake.Client) {
	t.Helper()
	ctx := context.Background()
	sc, err := c.Scan(ctx, &hbase.Scan{Table: seeds.SMSIndexTableName, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range hbase.All(ctx, sc) {
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, &hbase.Delete{Table: seeds.SMSIndexTableName, Row: r.Row(), Timestamp: r.Cells[0].Timestamp}); err != nil {
			t.Fatal(err)
		}
	}
}

func decodeReport(t *testing.T, s string) index.Report {
	t.Helper()
	var out struct {
		Report index.Report `json:"report"`
		Clean  bool         `json:"clean"`
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%v in %q", err, s)
	}
	if out.Clean != out.Report.Clean() {
		t.Errorf("clean %v for %+v", out.Clean, out.Report)
	}
	return out.Report
}

func TestIndexVerifyRepair(t *testing.T) {
	c := indexFixture(t, 12)
	out, _, err := runIndexCmd(t, c, "verify", "--schema", "sms", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if rep := decodeReport(t, out); !rep.Clean() || rep.DataRows != 12 || rep.Entries != 12 {
		t.Fatalf("fresh verify: %+v", rep)
	}
	dropEntry(t, c)
	out, errOut, err := runIndexCmd(t, c, "verify", "--schema", "sms", "--json", "--zk", "zk9:2181")
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("verify of a diverged index: %v", err)
	}
	if rep := decodeReport(t, out); rep.Missing != 1 || rep.Entries != 11 {
		t.Fatalf("verify: %+v, want 1 missing", rep)
	}
	if !strings.Contains(errOut, "pass 2/2") || !strings.Contains(errOut, "100%") {
		t.Errorf("no progress on stderr: %q", errOut)
	}
	if out, _, err = runIndexCmd(t, c, "repair", "--schema", "sms"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "repaired     1") {
		t.Errorf("repair output: %q", out)
	}
	if out, _, err = runIndexCmd(t, c, "verify", "--schema", "sms", "--json"); err != nil {
		t.Fatalf("verify after repair: %v\n%s", err, out)
	}
}

func TestIndexCheckpointResume(t *testing.T) {
	c := indexFixture(t, 10)
	cpFile := filepath.Join(t.TempDir(), "cp.json")
	// A run stopped in pass 2 after counting its first half.
	stopped := index.Checkpoint{Table: "sms", Mode: "verify", Pass: 2, Report: index.Report{DataRows: 10, Entries: 1000}}
	b, _ := json.Marshal(stopped)
	if err := os.WriteFile(cpFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runIndexCmd(t, c, "verify", "--schema", "sms", "--json", "--checkpoint", cpFile, "--batch", "3")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "resuming verify of sms at pass 2") {
		t.Errorf("stderr %q", errOut)
	}
	if rep := decodeReport(t, out); rep.DataRows != 10 || rep.Entries != 1010 {
		t.Fatalf("resumed report %+v: want the saved counts plus pass 2 only", rep)
	}
	cp, ok, err := loadCheckpoint(cpFile)
	if err != nil || !ok || !cp.Done {
		t.Fatalf("final checkpoint %+v %v %v", cp, ok, err)
	}
	// A finished checkpoint starts afresh.
	if out, _, err = runIndexCmd(t, c, "verify", "--schema", "sms", "--json", "--checkpoint", cpFile); err != nil {
		t.Fatal(err)
	}
	if rep := decodeReport(t, out); rep.DataRows != 10 || rep.Entries != 10 {
		t.Fatalf("fresh run %+v", rep)
	}
}

func TestIndexUsage(t *testing.T) {
	c := indexFixture(t, 0)
	tests := []struct {
		name string
		args []string
		want error
	}{
		{"no args", nil, ErrUsage},
		{"unknown subcommand", []string{"fix", "--schema", "sms"}, ErrUsage},
		{"no schema", []string{"verify"}, ErrUsage},
		{"bad rename", []string{"verify", "--schema", "sms", "--rename", "sms"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runIndexCmd(t, c, tc.args...)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if _, _, err := runIndexCmd(t, c, "verify", "--schema", "orders"); err == nil {
		t.Fatal("a schema without an index was accepted")
	}
}
