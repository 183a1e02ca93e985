package gohbase

import (
	"errors"

	"github.com/tsuna/gohbase"

	"github.com/hbkit/hbkit/hbase"
)

// Client implements hbase.DataClient over a gohbase.Client and, as far as
// gohbase's AdminClient offers the calls, hbase.AdminClient (README.md
// lists what is covered). It does not own the gohbase clients: closing
// them stays with the caller. A Client is safe for concurrent use if the
// gohbase clients are (gohbase's own are).
type Client struct {
	c     gohbase.Client
	admin gohbase.AdminClient
}

var (
	_ hbase.DataClient  = (*Client)(nil)
	_ hbase.AdminClient = (*Client)(nil)
)

// Option configures a Client.
type Option func(*options)

type options struct {
	admin    gohbase.AdminClient
	adminSet bool
}

// WithAdminClient gives the Client a gohbase.AdminClient for its table
// calls (CreateTable, DeleteTable, EnableTable, DisableTable,
// TableExists, ListTables). Without it those calls fail with
// ErrNoAdminClient; IsTableEnabled and TableRegions read hbase:meta
// through the data client and work either way.
func WithAdminClient(ac gohbase.AdminClient) Option {
	return func(o *options) { o.admin, o.adminSet = ac, true }
}

func (o *options) validate() error {
	if o.adminSet && o.admin == nil {
		return errors.New("gohbase adapter: WithAdminClient(nil)")
	}
	return nil
}

// New returns a Client that sends hbkit's calls through c, a client made
// with gohbase.NewClient (or any implementation of gohbase.Client).
func New(c gohbase.Client, opts ...Option) (*Client, error) {
	if c == nil {
		return nil, errors.New("gohbase adapter: nil gohbase.Client")
	}
	var o options
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("gohbase adapter: nil Option")
		}
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return &Client{c: c, admin: o.admin}, nil
}
