package dao

import (
	"context"
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// ErrNeedUIDTable is the error of OpenDocument for a document that
// declares UID fields, given no UID table.
var ErrNeedUIDTable = errors.New("dao: the schema declares UID fields: its UID table is needed")

// OpenDocument opens the store of schema document doc over schema.Values
// records, as tools that know a table only by the document stored with
// it do (the hbkit CLI, package jobs). An index whose document leaves out
// its entries' row pointer gets the one a Go store bound to the document
// writes (schema.Document.WithRowPointers). uidTable is the UID table of
// the UID fields doc declares, unused when it declares none; c must then
// also be a UIDClient. A wide table's document is an error: open it with
// schema.OpenWide and NewWide.
func OpenDocument(c Client, doc schema.Document, uidTable string, opts ...Option) (*Repo[schema.Values], error) {
	if doc.Wide != nil {
		return nil, fmt.Errorf("dao: open %s: %w: a wide table's document (open it with NewWide)", doc.Name, ErrInvalidOption)
	}
	t, err := schema.Open(doc.WithRowPointers())
	if err != nil {
		return nil, err
	}
	if len(doc.UIDs) > 0 {
		u, err := documentUIDs(c, doc, uidTable)
		if err != nil {
			return nil, err
		}
		opts = append(opts, WithUIDs(u))
	}
	return New(c, t, opts...)
}

// documentUIDs opens the UID table of the UID fields doc declares.
func documentUIDs(c Client, doc schema.Document, table string) (*UIDs, error) {
	if table == "" {
		return nil, fmt.Errorf("dao: open %s: %w", doc.Name, ErrNeedUIDTable)
	}
	uc, ok := c.(UIDClient)
	if !ok {
		return nil, fmt.Errorf("dao: open %s: the UID table %s needs a client that can Increment: %w", doc.Name, table, errors.ErrUnsupported)
	}
	var kinds []UIDKind
	seen := map[string]bool{}
	for _, u := range doc.UIDs {
		if !seen[u.Kind] {
			seen[u.Kind] = true
			kinds = append(kinds, UIDKind{Name: u.Kind, Width: u.Width})
		}
	}
	return NewUIDs(uc, table, kinds)
}

// Span is the part of one table CheckRange covers: a key range of the
// data table or of one of its index tables.
type Span = index.Span

// CheckRange is Check over one Span, as a job's unit runs it: see
// index.Table.CheckRange (a rebuild writes the entries of versioned rows
// as plain Puts at their version).
func (r *Repo[T]) CheckRange(ctx context.Context, mode Mode, sp Span, opts ...CheckOption) (Report, error) {
	if err := r.usable(); err != nil {
		return Report{}, err
	}
	if r.ix == nil {
		return Report{}, fmt.Errorf("dao: check %q: %w", r.name, ErrNoIndex)
	}
	return r.ix.CheckRange(ctx, mode, sp, opts...)
}

// ActivateIndex marks the named index ("": every index) active, so that
// reads through it answer: the last step of BuildIndex, for a build whose
// entries a job wrote (CheckRange in ModeRebuild over every part of the
// data table).
func (r *Repo[T]) ActivateIndex(ctx context.Context, name string) error {
	if err := r.usable(); err != nil {
		return err
	}
	if r.ix == nil {
		return fmt.Errorf("dao: activate index %q: %w", r.name, ErrNoIndex)
	}
	return r.ix.Activate(ctx, name)
}
