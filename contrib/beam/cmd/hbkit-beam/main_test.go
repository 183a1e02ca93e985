package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hbkit/hbkit/contrib/beam/pipeline"
	"github.com/hbkit/hbkit/jobs"
)

func TestJobOf(t *testing.T) {
	dir := t.TempDir()
	specFile := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specFile, []byte(`{"kind":"copy","table":"a","target":"b"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "hbase-site.xml")
	if err := os.WriteFile(site, []byte(`<configuration><property><name>hbase.zookeeper.quorum</name><value>zk9</value></property></configuration>`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                   string
		spec, zk, site, report string
		want                   pipeline.Job
		err                    error
	}{
		{name: "inline", spec: `{"kind":"verify","table":"sms"}`, zk: "zk1:2181", report: "r.json",
			want: pipeline.Job{Spec: jobs.Spec{Kind: jobs.KindVerify, Table: "sms"}, Conn: pipeline.Conn{Quorum: "zk1:2181"}, ReportPath: "r.json"}},
		{name: "file and site", spec: "@" + specFile, site: site,
			want: pipeline.Job{Spec: jobs.Spec{Kind: jobs.KindCopy, Table: "a", Target: "b"}, Conn: pipeline.Conn{Properties: map[string]string{"hbase.zookeeper.quorum": "zk9"}}}},
		{name: "bad json", spec: `{"kind":`, zk: "zk1", err: jobs.ErrSpec},
		{name: "no spec", zk: "zk1", err: errUsage},
		{name: "no cluster", spec: `{"kind":"verify","table":"sms"}`, err: errUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jobOf(tc.spec, tc.zk, tc.site, tc.report)
			if !errors.Is(err, tc.err) {
				t.Fatalf("jobOf: got error %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			if got.Spec != tc.want.Spec || got.Conn.Quorum != tc.want.Conn.Quorum || got.ReportPath != tc.want.ReportPath ||
				len(got.Conn.Properties) != len(tc.want.Conn.Properties) {
				t.Errorf("jobOf: got %+v, want %+v", got, tc.want)
			}
			for k, v := range tc.want.Conn.Properties {
				if got.Conn.Properties[k] != v {
					t.Errorf("jobOf: property %s: got %q, want %q", k, got.Conn.Properties[k], v)
				}
			}
		})
	}
}
