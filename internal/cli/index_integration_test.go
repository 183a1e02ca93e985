//go:build integration

package cli

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
	"github.com/hbkit/hbkit/schema"
)

// hbkit index against the local HBase (make hbase-up):
//
//	go test -tags integration -run TestIndexIntegration ./internal/cli/
func TestIndexIntegration(t *testing.T) {
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := hbase.New(ctx, zk)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36)
	data, ix := "hbkit_it_cli_sms_"+run, "hbkit_it_cli_sms_index_"+run
	st, err := schema.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range []schema.Definition{st, st.Indexes()[0]} {
		name := []string{data, ix}[i]
		desc := hbase.TableDescriptor{Name: name}
		for _, f := range d.Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if err := c.CreateTable(ctx, desc, d.SplitKeys()); err != nil {
			t.Fatal(err)
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = c.DisableTable(ctx, name)
			if err := c.DeleteTable(ctx, name); err != nil {
				t.Errorf("cleanup %s: %v", name, err)
			}
		}()
	}
	rename := "sms=" + data + ",sms_index=" + ix
	s, err := dao.NewSMS(c, dao.WithTableNames(map[string]string{"sms": data, "sms_index": ix}))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*schema.SMS
	for i := range 40 {
		recs = append(recs, &schema.SMS{Mobile: fmt.Sprintf("1370000%04d", i), SentAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			Seq: uint64(i), Account: "acct", Content: "hi"})
	}
	if _, err := s.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil { // the writer is done
		t.Fatal(err)
	}
	// Break the index behind the protocol's back: drop one entry (marker
	// at its own timestamp), and add an entry pointing nowhere.
	sc, err := c.Scan(ctx, &hbase.Scan{Table: ix, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range hbase.All(ctx, sc) {
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, &hbase.Delete{Table: ix, Row: r.Row(), Timestamp: r.Cells[0].Timestamp}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Put(ctx, &hbase.Put{Table: ix, Row: []byte("9-stray-entry"), Values: map[string]map[string][]byte{"cf": {"row": []byte("nowhere")}}}); err != nil {
		t.Fatal(err)
	}

	cmd := func(args ...string) (string, string, error) {
		var out, errw bytes.Buffer
		e := &Env{Stdout: &out, Stderr: &errw, Getenv: os.Getenv, Connect: ConnectNative}
		err := runIndex(ctx, e, append(args, "--schema", "sms", "--rename", rename, "--zk", zk, "--grace", "0s", "--batch", "7"))
		return out.String(), errw.String(), err
	}
	out, errOut, err := cmd("verify", "--checkpoint", filepath.Join(t.TempDir(), "cp.json"))
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("verify: %v\n%s\n%s", err, out, errOut)
	}
	for _, want := range []string{"data rows    40", "entries      40", "missing      1", "orphaned     1"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "100%") {
		t.Errorf("no progress: %q", errOut)
	}
	if out, errOut, err = cmd("repair"); err != nil {
		t.Fatalf("repair: %v\n%s\n%s", err, out, errOut)
	}
	if out, errOut, err = cmd("verify", "--json"); err != nil {
		t.Fatalf("verify after repair: %v\n%s\n%s", err, out, errOut)
	}
	if out, errOut, err = cmd("rebuild"); err != nil || !strings.Contains(out, "repaired     40") {
		t.Fatalf("rebuild: %v\n%s\n%s", err, out, errOut)
	}
	if out, _, err = cmd("verify"); err != nil {
		t.Fatalf("verify after rebuild: %v\n%s", err, out)
	}
}
