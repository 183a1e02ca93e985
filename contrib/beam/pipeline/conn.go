package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/hbkit/hbkit/hbase"
)

// ErrConn is wrapped by the errors of a Conn that names no cluster or
// whose properties hbase.ConfigFromProperties refuses (with
// hbase.ErrInvalidConfig).
var ErrConn = errors.New("pipeline: invalid connection settings")

// Conn says how a worker connects to HBase. It is plain data: the
// pipeline carries it to every worker, which connects once per DoFn
// instance.
type Conn struct {
	// Quorum is the ZooKeeper quorum, host:port[,host:port...]. It
	// overrides the quorum Properties give.
	Quorum string `json:"quorum,omitempty"`
	// Properties are hbase-site.xml properties, by the Java client's
	// keys (hbase.Config); files they name, such as a keytab or a
	// truststore, must exist on every worker.
	Properties map[string]string `json:"properties,omitempty"`
}

// ConnFromSite reads the hbase-site.xml files at paths (on the machine
// that builds the pipeline) into a Conn; quorum, when not empty,
// overrides theirs.
func ConnFromSite(quorum string, paths ...string) (Conn, error) {
	c := Conn{Quorum: quorum}
	if len(paths) == 0 {
		return c, nil
	}
	cfg, err := hbase.LoadConfig(paths...)
	if err != nil {
		return Conn{}, err
	}
	c.Properties = maps.Clone(cfg.Properties)
	return c, nil
}

// config is the hbase.Config of c.
func (c Conn) config() (*hbase.Config, error) {
	p := maps.Clone(c.Properties)
	if p == nil {
		p = map[string]string{}
	}
	if c.Quorum != "" {
		p["hbase.zookeeper.quorum"] = c.Quorum
		p["hbase.client.registry.impl"] = "ZKConnectionRegistry"
	}
	cfg, err := hbase.ConfigFromProperties(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConn, err)
	}
	return cfg, nil
}

// Dial connects to the cluster c names.
func (c Conn) Dial(ctx context.Context, opts ...hbase.Option) (*hbase.Client, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, err
	}
	return hbase.NewFromConfig(ctx, cfg, opts...)
}
