package dao

import (
	"context"
	"fmt"

	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// ErrIndexBuilding reports a read through an index that is building: its
// table was created over a data table that held rows, which may have no
// entry until BuildIndex has run. The error is an *index.BuildingError
// naming the index; WithIncompleteIndexReads reads anyway.
var ErrIndexBuilding = index.ErrIndexBuilding

// WithIncompleteIndexReads lets Find, Page, Keys and Count answer from an
// index that is building (ErrIndexBuilding otherwise): their answers may
// then miss records written before the index existed.
func WithIncompleteIndexReads() Option {
	return protocolOption("WithIncompleteIndexReads", func(c *index.Config) { c.ReadIncomplete = true })
}

// IndexState returns the state of the named index as its table's
// descriptor holds it now (see schema.IndexState).
func (r *Repo[T]) IndexState(ctx context.Context, name string) (schema.IndexState, error) {
	if err := r.usable(); err != nil {
		return "", err
	}
	if r.ix == nil {
		return "", fmt.Errorf("dao: index state %q: %w", r.name, ErrNoIndex)
	}
	return r.ix.State(ctx, name)
}

// BuildIndex writes the entries that the named index ("": every index)
// lacks for records written before it existed, while writers keep
// writing, then marks it active, so that reads through it answer again.
// It is index.Table.Build: idempotent, resumable, with progress through
// index.WithProgress. The client must also be able to read and change
// table descriptors (index.StateWriter), as the real client and the fake
// are.
func (r *Repo[T]) BuildIndex(ctx context.Context, name string, opts ...index.CheckOption) (index.Report, error) {
	if err := r.usable(); err != nil {
		return index.Report{}, err
	}
	if r.ix == nil {
		return index.Report{}, fmt.Errorf("dao: build index %q: %w", r.name, ErrNoIndex)
	}
	if name != "" {
		if _, err := r.Index(name); err != nil {
			return index.Report{}, err
		}
	}
	return r.ix.Build(ctx, name, opts...)
}
