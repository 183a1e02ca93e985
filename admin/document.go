package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// DescriptorWriter is the call that stores a schema document in a table
// created before documents were stored (EnsureTable); hbase.AdminClient
// and the fake have it. A Client without it, or whose ModifyTable is
// unsupported (errors.ErrUnsupported), leaves such tables as they are.
type DescriptorWriter interface {
	ModifyTable(ctx context.Context, desc hbapi.TableDescriptor) error
}

// isDocument reports whether a schema file is a schema document: a JSON
// object with a "version".
func isDocument(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["version"]
	return ok
}

// documentDefinitions opens a schema document file: its table (over
// schema.Values records), then its index tables.
func documentDefinitions(data []byte) ([]schema.Definition, error) {
	doc, err := schema.ParseDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%w: schema document: %w", ErrInvalidSchema, err)
	}
	if doc.Wide != nil {
		w, err := schema.OpenWide(doc)
		if err != nil {
			return nil, fmt.Errorf("%w: schema document: %w", ErrInvalidSchema, err)
		}
		return []schema.Definition{w}, nil
	}
	t, err := schema.Open(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: schema document: %w", ErrInvalidSchema, err)
	}
	return WithIndexes(t), nil
}

// ReadDocument returns the schema document stored with table (written by
// EnsureTables). A table without one is an error wrapping ErrNoDocument;
// a missing table one wrapping hbase.ErrTableNotFound; a stored document
// that does not parse one wrapping schema.ErrInvalidDocument.
func (a *Admin) ReadDocument(ctx context.Context, table string) (schema.Document, error) {
	name, err := checkName(table)
	if err != nil {
		return schema.Document{}, err
	}
	desc, err := a.c.DescribeTable(ctx, name)
	if err != nil {
		return schema.Document{}, fmt.Errorf("admin: describe table %q: %w", name, err)
	}
	stored, ok := desc.Attributes[schema.DocumentAttribute]
	if !ok {
		return schema.Document{}, fmt.Errorf("%w: %q", ErrNoDocument, name)
	}
	doc, err := schema.ParseDocument([]byte(stored))
	if err != nil {
		return schema.Document{}, fmt.Errorf("admin: table %q: stored schema document: %w", name, err)
	}
	return doc, nil
}

// documentDiff compares the declared document with the one stored in the
// live table. A table that stores none is not drifted: ensure stores it.
func documentDiff(p *Plan, desc hbapi.TableDescriptor) (Diff, bool) {
	declared := p.Descriptor.Attributes[schema.DocumentAttribute]
	stored, ok := desc.Attributes[schema.DocumentAttribute]
	if declared == "" || !ok || declared == stored {
		return Diff{}, false
	}
	path, d, s := firstDifference(declared, stored)
	if path == "" {
		return Diff{}, false
	}
	return Diff{Kind: SchemaDocument, Option: path, Declared: d, Actual: s}, true
}

// storeDocument writes the declared document into a live table that has
// none, when the client can modify tables.
func (a *Admin) storeDocument(ctx context.Context, p *Plan, desc hbapi.TableDescriptor) error {
	declared := p.Descriptor.Attributes[schema.DocumentAttribute]
	w, ok := a.c.(DescriptorWriter)
	if _, stored := desc.Attributes[schema.DocumentAttribute]; declared == "" || stored || !ok {
		return nil
	}
	desc.Attributes = maps.Clone(desc.Attributes)
	if desc.Attributes == nil {
		desc.Attributes = map[string]string{}
	}
	desc.Attributes[schema.DocumentAttribute] = declared
	err := w.ModifyTable(ctx, desc)
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("admin: store the schema document of %q: %w", p.Table, err)
	}
	return nil // a client that cannot modify tables leaves the table as it is
}

// firstDifference returns the path of the first difference between two
// JSON documents and the values there, shortened; an empty path when they
// are equal as JSON. Families and split keys are left out: drift compares
// those with the live table itself (FamilyOption, SplitKeys), the index
// tables' on the index tables.
func firstDifference(declared, stored string) (path, d, s string) {
	var a, b any
	if err := decodeJSON(declared, &a); err != nil {
		return "document", "unreadable", "unreadable"
	}
	if err := decodeJSON(stored, &b); err != nil {
		return "document", "a document", "unreadable JSON"
	}
	withoutLayout(a)
	withoutLayout(b)
	return jsonDiff(a, b, "")
}

// withoutLayout removes the families and splits of a decoded document and
// of its indexes.
func withoutLayout(doc any) {
	m, ok := doc.(map[string]any)
	if !ok {
		return
	}
	delete(m, "families")
	delete(m, "splits")
	ixs, _ := m["indexes"].([]any)
	for _, ix := range ixs {
		if im, ok := ix.(map[string]any); ok {
			delete(im, "families")
			delete(im, "splits")
		}
	}
}

func decodeJSON(s string, v *any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	return dec.Decode(v)
}

func jsonDiff(a, b any, path string) (string, string, string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Sorted(maps.Keys(x))
		for k := range y {
			if _, in := x[k]; !in {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if p, d, s := jsonDiff(x[k], y[k], joinPath(path, k)); p != "" {
				return p, d, s
			}
		}
		return "", "", ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range max(len(x), len(y)) {
			var u, v any
			if i < len(x) {
				u = x[i]
			}
			if i < len(y) {
				v = y[i]
			}
			if p, d, s := jsonDiff(u, v, path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p, d, s
			}
		}
		return "", "", ""
	}
	da, db := short(a), short(b)
	if da == db {
		return "", "", ""
	}
	if path == "" {
		path = "document"
	}
	return path, da, db
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// short is a value as JSON, at most 60 bytes; "none" for a missing one.
func short(v any) string {
	if v == nil {
		return "none"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
