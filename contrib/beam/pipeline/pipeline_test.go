package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/jobs"
)

func TestConnConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		conn     Conn
		registry string
		quorum   string
		err      error
	}{
		{name: "quorum", conn: Conn{Quorum: "zk1:2281"}, registry: "zk", quorum: "zk1:2281"},
		{name: "properties", conn: Conn{Properties: map[string]string{"hbase.zookeeper.quorum": "a,b", "hbase.zookeeper.property.clientPort": "2281"}}, registry: "zk", quorum: "a:2281,b:2281"},
		{name: "quorum overrides rpc", conn: Conn{Quorum: "zk1:2281", Properties: map[string]string{"hbase.client.bootstrap.servers": "m1:16000"}}, registry: "zk", quorum: "zk1:2281"},
		{name: "bootstrap", conn: Conn{Properties: map[string]string{"hbase.client.bootstrap.servers": "m1:16000"}}, registry: "rpc"},
		{name: "nothing", conn: Conn{}, err: ErrConn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.conn.config()
			if !errors.Is(err, tc.err) {
				t.Fatalf("config: got error %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				if !errors.Is(err, hbase.ErrInvalidConfig) {
					t.Errorf("config: got %v, want it to wrap hbase.ErrInvalidConfig too", err)
				}
				return
			}
			if cfg.Registry != tc.registry || cfg.Quorum != tc.quorum {
				t.Errorf("config: got registry %q quorum %q, want %q %q", cfg.Registry, cfg.Quorum, tc.registry, tc.quorum)
			}
		})
	}
}

// TestPrismReportsSetupError runs the pipeline on Prism against a cluster
// that is not there: the job fails, and its error names the connection.
func TestPrismReportsSetupError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, s := beam.NewPipelineWithRoot()
	Build(s, Job{Spec: jobs.Spec{Kind: jobs.KindVerify, Table: "t"}, Conn: Conn{Properties: map[string]string{"hbase.client.registry.impl": "Nope"}}})
	_, err := prism.Execute(ctx, p)
	if err == nil {
		t.Fatal("prism.Execute: got no error for a connection that cannot be made")
	}
	// Only the message crosses Prism's job service: the error chain of
	// the worker is not there to errors.Is.
	if !strings.Contains(err.Error(), "hbase.client.registry.impl Nope") {
		t.Errorf("prism.Execute: got %v, want the worker's connect error", err)
	}
}
