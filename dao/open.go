package dao

import (
	"context"
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Conn is a Client that can also create tables: what Open needs. The
// native client (hbase.New) and the in-memory fake (hbase/fake) are ones.
type Conn interface {
	Client
	TableCreator
}

// TableCreator creates a table: the call of hbase.AdminClient that
// CreateTables makes.
type TableCreator interface {
	CreateTable(ctx context.Context, desc hbapi.TableDescriptor, splitKeys [][]byte) error
}

// Open is the short way to a store: it builds the table doc describes
// over the struct type T (schema.Bind: fields named by the struct, see
// schema.StructFields), creates the store's data and index tables,
// pre-split, where they do not exist (CreateTables), and returns the
// store (New, with opts).
func Open[T any](ctx context.Context, c Conn, doc schema.Document, opts ...Option) (*Repo[T], error) {
	tbl, err := schema.Bind[T](doc)
	if err != nil {
		return nil, err
	}
	r, err := New(c, tbl, opts...)
	if err != nil {
		return nil, err
	}
	if err := r.CreateTables(ctx, c); err != nil {
		return nil, err
	}
	return r, nil
}

// CreateTables creates the tables the store writes (Tables), with their
// families and split keys, in the order of Tables, skipping each table
// that exists. The data table stores its schema document, as
// admin.EnsureTables stores it (schema.DocumentAttribute), when the
// table describes itself. It checks nothing of an existing table and
// creates no namespace: admin.EnsureTables does both, and reports drift.
func (r *Repo[T]) CreateTables(ctx context.Context, c TableCreator) error {
	for _, d := range r.Tables() {
		desc := hbapi.TableDescriptor{Name: d.Name().String()}
		for _, f := range d.Families() {
			desc.Families = append(desc.Families, hbapi.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if doc, err := schema.StoredDocument(d); err == nil && doc != "" {
			desc.Attributes = map[string]string{schema.DocumentAttribute: doc}
		}
		err := c.CreateTable(ctx, desc, d.SplitKeys())
		if err != nil && !errors.Is(err, hbapi.ErrTableExists) {
			return fmt.Errorf("dao: create table %q: %w", desc.Name, err)
		}
	}
	return nil
}
