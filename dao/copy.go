package dao

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// CopySpec names the two tables of a copy (NewCopier) and the schema
// documents that say how each encodes a record.
type CopySpec struct {
	Source, Target schema.Document
	// SourceTable and TargetTable are the tables on the cluster; "" means
	// the document's name.
	SourceTable, TargetTable string
}

// Copier copies records from a source table into a target table of
// another layout (another key design, more regions, another namespace),
// both known by their schema documents: a source row is decoded by the
// source document into schema.Values and encoded by the target's, index
// entries included. The target's cells carry the source row's version
// (the protocol's version cell, or the row's newest cell timestamp) as
// timestamp, so a copy never undoes a newer write to the target and a
// delete marker above it masks it: copying a row again, or late, is
// harmless. It is the one path of hbkit's table copies and migrations
// (WithMirror, the copy and compare jobs of package jobs). A Copier is
// safe for concurrent use.
type Copier struct {
	src, dst         *Repo[schema.Values]
	srcType, dstType map[string]string // field types of the documents
	byKey            bool              // the target key is computed from fields of the source key
	// raw: the target has no index and stores every column as the source
	// does, so a copy re-keys the row and keeps its cells as they are.
	raw  bool
	cols map[string]map[string]bool // raw: family -> qualifier -> declared
}

// CopyOutcome says what the writes Copier.Actions returns do.
type CopyOutcome uint8

const (
	CopySkipped CopyOutcome = iota // nothing to copy: no row, and no delete to copy
	CopyRecord                     // a live record, written at its version
	CopyDelete                     // a deleted record, deleted in the target at its version
)

// NewCopier returns the Copier of spec over c. The target's key must be
// computable from the source's fields and may not hold a random salt
// (keys.KindSalt: copying a record twice would store it twice; use a hash
// bucket); every target field must be a source field of the same type.
// Wide tables and UID fields are not supported. Errors wrap
// ErrInvalidOption.
func NewCopier(c Client, spec CopySpec) (*Copier, error) {
	if err := checkCopyDocs(spec.Source, spec.Target); err != nil {
		return nil, err
	}
	src, err := documentRepo(c, spec.Source, spec.SourceTable)
	if err != nil {
		return nil, err
	}
	dst, err := documentRepo(c, spec.Target, spec.TargetTable)
	if err != nil {
		return nil, err
	}
	cp := &Copier{src: src, dst: dst, srcType: fieldTypes(spec.Source), dstType: fieldTypes(spec.Target), byKey: true}
	srcKey := map[string]bool{}
	for _, s := range src.t.KeySegments() {
		if s.Decodable && s.Kind != keys.KindLiteral {
			srcKey[s.Name] = true
		}
	}
	for _, s := range dst.t.KeySegments() {
		if s.Kind == keys.KindSalt {
			return nil, fmt.Errorf("dao: %w: copy into %s: key segment %q is a random salt: a record copied twice would be stored twice (use a hash bucket)",
				ErrInvalidOption, dst.name, s.Name)
		}
		if f, ok := dst.t.Source(s.Name); ok && !srcKey[f] {
			cp.byKey = false
		}
	}
	cp.raw = cp.byKey && len(dst.t.Indexes()) == 0 && slices.Equal(src.t.Columns(), dst.t.Columns())
	if cp.raw {
		cp.cols = map[string]map[string]bool{}
		for _, c := range src.t.Columns() {
			if cp.cols[c.Family] == nil {
				cp.cols[c.Family] = map[string]bool{}
			}
			cp.cols[c.Family][c.Qualifier] = true
		}
	}
	return cp, nil
}

// checkCopyDocs refuses documents a copy cannot serve.
func checkCopyDocs(src, dst schema.Document) error {
	for _, d := range []schema.Document{src, dst} {
		switch {
		case d.Wide != nil:
			return fmt.Errorf("dao: %w: copy: %s is a wide table", ErrInvalidOption, d.Name)
		case len(d.UIDs) > 0:
			return fmt.Errorf("dao: %w: copy: %s declares UID fields", ErrInvalidOption, d.Name)
		}
	}
	types := fieldTypes(src)
	for _, f := range dst.Fields {
		t, ok := types[f.Name]
		switch {
		case !ok:
			return fmt.Errorf("dao: %w: copy: field %q of %s is not a field of %s", ErrInvalidOption, f.Name, dst.Name, src.Name)
		case t != f.Type && !convertible(t, f.Type):
			return fmt.Errorf("dao: %w: copy: field %q is a %s in %s, a %s in %s", ErrInvalidOption, f.Name, t, src.Name, f.Type, dst.Name)
		}
	}
	return nil
}

func fieldTypes(doc schema.Document) map[string]string {
	types := make(map[string]string, len(doc.Fields))
	for _, f := range doc.Fields {
		types[f.Name] = f.Type
	}
	return types
}

// convertible reports whether a copy converts values of type a to type b:
// a time and its Unix milliseconds (documents infer a time in a key
// segment of milliseconds as an int64), and integers of either sign.
func convertible(a, b string) bool {
	pair := func(x, y string) bool { return a == x && b == y || a == y && b == x }
	return pair("int64", "time") || pair("int64", "uint64")
}

// convert converts the values of v in place to the types of to, from the
// types of from (convertible pairs only).
func convert(v schema.Values, from, to map[string]string) {
	for name, x := range v {
		if from[name] == to[name] {
			continue
		}
		switch y := x.(type) {
		case time.Time:
			v[name] = y.UnixMilli()
		case int64:
			if to[name] == "time" {
				v[name] = time.UnixMilli(y).UTC()
			} else {
				v[name] = uint64(y)
			}
		case uint64:
			v[name] = int64(y)
		}
	}
}

// documentRepo opens the store of doc over schema.Values records on table
// ("" its declared name), with each index's row pointer (as a Go store
// bound to the document writes it).
func documentRepo(c Client, doc schema.Document, table string) (*Repo[schema.Values], error) {
	var opts []Option
	if len(doc.Indexes) > 0 {
		doc = doc.WithRowPointers()
		opts = append(opts, WithAsyncVerify(false))
	}
	t, err := schema.Open(doc)
	if err != nil {
		return nil, fmt.Errorf("dao: %w: document %s: %w", ErrInvalidOption, doc.Name, err)
	}
	if table != "" && table != t.Name().String() {
		opts = append(opts, WithTableNames(map[string]string{t.Name().String(): table}))
	}
	return New(c, t, opts...)
}

// SourceTable returns the source table's name on the cluster.
func (cp *Copier) SourceTable() string { return cp.src.name }

// TargetTable returns the target table's name on the cluster.
func (cp *Copier) TargetTable() string { return cp.dst.name }

// Target returns the target's schema (over schema.Values records).
func (cp *Copier) Target() *schema.Table[schema.Values] { return cp.dst.t }

// Source returns the source's schema (over schema.Values records).
func (cp *Copier) Source() *schema.Table[schema.Values] { return cp.src.t }

// ByKey reports whether the target key is computed from the source key
// alone (TargetKey then needs no row's cells).
func (cp *Copier) ByKey() bool { return cp.byKey }

// Read decodes a source row: its record, its version, and whether it is
// live (false for an empty row and a tombstone). A row that does not
// decode is an error wrapping ErrDecode.
func (cp *Copier) Read(res *hbapi.Result) (schema.Values, int64, bool, error) {
	return cp.src.readVersioned(res)
}

// readAsTarget is Read with the values converted to the target's types.
func (cp *Copier) readAsTarget(res *hbapi.Result) (schema.Values, int64, bool, error) {
	v, ver, live, err := cp.src.readVersioned(res)
	if live && err == nil {
		convert(v, cp.srcType, cp.dstType)
	}
	return v, ver, live, err
}

// ReadTarget decodes a target row as Read decodes a source row.
func (cp *Copier) ReadTarget(res *hbapi.Result) (schema.Values, int64, bool, error) {
	return cp.dst.readVersioned(res)
}

// readVersioned decodes a data row with its version.
func (r *Repo[T]) readVersioned(res *hbapi.Result) (T, int64, bool, error) {
	var v T
	ver, live := r.rowVersion(res)
	if !live {
		return v, ver, false, nil
	}
	_, err := r.decode(res, nil, &v)
	return v, ver, true, err
}

// rowVersion returns the version of a data row and whether it is live.
func (r *Repo[T]) rowVersion(res *hbapi.Result) (int64, bool) {
	if r.ix != nil {
		return r.ix.RowVersion(res)
	}
	var v int64
	for _, c := range res.Cells {
		v = max(v, c.Timestamp)
	}
	return v, !res.Empty()
}

// Live reports whether a source row holds a live record, without
// decoding it.
func (cp *Copier) Live(res *hbapi.Result) bool {
	_, live := cp.src.rowVersion(res)
	return live
}

// TargetRowKey returns the target row key of the record a live source
// row holds; false for a row that holds none.
func (cp *Copier) TargetRowKey(res *hbapi.Result) ([]byte, bool, error) {
	v, _, live, err := cp.readAsTarget(res)
	if err != nil || !live {
		return nil, false, err
	}
	k, err := cp.dst.t.AppendKey(nil, &v)
	if err != nil {
		return nil, false, cp.dst.invalid(err)
	}
	return k, true, nil
}

// TargetKey returns the target row key of the record whose source row key
// is key (ByKey must hold).
func (cp *Copier) TargetKey(dst, key []byte) ([]byte, error) {
	if !cp.byKey {
		return dst, fmt.Errorf("dao: %w: the key of %s needs fields that the key of %s lacks", ErrInvalidOption, cp.dst.name, cp.src.name)
	}
	var v schema.Values
	if err := cp.src.t.DecodeKey(key, &v); err != nil {
		return dst, &DecodeError{Table: cp.src.name, Reason: "row key", Err: err}
	}
	convert(v, cp.srcType, cp.dstType)
	out, err := cp.dst.t.AppendKey(dst, &v)
	if err != nil {
		return dst, cp.dst.invalid(err)
	}
	return out, nil
}

// Actions appends to acts the target writes that copy the source row res
// (whose key is key: res may be empty) and says what they do. A row that
// holds no record is copied as a delete at its version when it is a
// tombstone, or at deletedAt when that is not 0 (the version a mirrored
// delete stamped the source with), and skipped otherwise. A row that
// does not decode, or whose record the target refuses, is an error
// (wrapping ErrDecode, or a *ValidationError) and appends nothing.
func (cp *Copier) Actions(acts []hbapi.Action, key []byte, res *hbapi.Result, deletedAt int64) ([]hbapi.Action, CopyOutcome, error) {
	if cp.raw {
		if ver, live := cp.src.rowVersion(res); live {
			return cp.rawActions(acts, key, res, ver)
		}
	}
	rec, ver, live, err := cp.readAsTarget(res)
	if err != nil {
		return acts, CopySkipped, err
	}
	if !live {
		ver = max(ver, deletedAt)
		if ver == 0 || !cp.byKey {
			return acts, CopySkipped, nil
		}
		k, err := cp.TargetKey(nil, key)
		if err != nil {
			return acts, CopySkipped, err
		}
		return cp.dst.versionedActions(acts, index.OpDelete, &schema.Record{Data: schema.Row{Key: k}}, ver), CopyDelete, nil
	}
	enc := new(schema.Record)
	if err := cp.dst.encode(&rec, enc); err != nil {
		return acts, CopySkipped, err
	}
	return cp.dst.versionedActions(acts, index.OpPut, enc, ver), CopyRecord, nil
}

// rawActions is Actions of a live row at version ver where the target stores the source's cells as
// they are (Copier.raw): the row key is re-encoded from the source key,
// the cells of the row's version are kept, nothing else is decoded.
func (cp *Copier) rawActions(acts []hbapi.Action, key []byte, res *hbapi.Result, ver int64) ([]hbapi.Action, CopyOutcome, error) {
	k, err := cp.TargetKey(nil, key)
	if err != nil {
		return acts, CopySkipped, err
	}
	since := cp.src.since(res)
	rec := &schema.Record{Data: schema.Row{Key: k, Cells: make([]schema.Cell, 0, len(res.Cells))}}
	for _, c := range res.Cells {
		if c.Type != 0 && c.Type != hbapi.CellTypePut || c.Timestamp < since || !cp.cols[string(c.Family)][string(c.Qualifier)] {
			continue
		}
		cells := rec.Data.Cells
		if n := len(cells); n > 0 && cells[n-1].Family == string(c.Family) && cells[n-1].Qualifier == string(c.Qualifier) {
			continue // an older version; Cells are newest first per column
		}
		rec.Data.Cells = append(cells, schema.Cell{Family: string(c.Family), Qualifier: string(c.Qualifier), Value: c.Value})
	}
	if len(rec.Data.Cells) == 0 {
		return acts, CopySkipped, &DecodeError{Table: cp.src.name, Reason: "row without a column of the document"}
	}
	return cp.dst.versionedActions(acts, index.OpPut, rec, ver), CopyRecord, nil
}

// since returns the timestamp below which a data row's cells belong to an
// older version of its record (index.Table.Since; 0 without index).
func (r *Repo[T]) since(res *hbapi.Result) int64 {
	if r.ix == nil {
		return 0
	}
	return r.ix.Since(res)
}

// versionedActions appends the writes of rec (or of its row's delete) at
// version v: through the index engine's copy writes on an indexed table
// (index.Table.CopyActions), else a Put of the row's cells and deletes of
// the columns it lacks, or a delete of the row, all at v.
func (r *Repo[T]) versionedActions(acts []hbapi.Action, op Op, rec *schema.Record, v int64) []hbapi.Action {
	if r.ix != nil {
		return append(acts, r.ix.CopyActions(op, rec, v)...)
	}
	if op == OpDelete {
		return append(acts, &hbapi.Delete{Table: r.name, Row: rec.Data.Key, Timestamp: v})
	}
	p := &hbapi.Put{Table: r.name, Row: rec.Data.Key, Cells: putCells(&rec.Data), Timestamp: v}
	acts = append(acts, p)
	for _, c := range r.columns {
		if _, ok := p.Value(c.Family, c.Qualifier); !ok {
			acts = append(acts, &hbapi.Delete{Table: r.name, Row: rec.Data.Key, Family: []byte(c.Family),
				Qualifier: []byte(c.Qualifier), AllVersions: true, Timestamp: v})
		}
	}
	return acts
}

// CompareOutcome is what Compare found of one record.
type CompareOutcome uint8

const (
	CompareSame      CompareOutcome = iota // both hold the record, with the same values (or neither holds it)
	CompareMissing                         // the source holds it, the target does not
	CompareDifferent                       // both hold it, with other values
	CompareExtra                           // the target holds it, the source does not
)

// Compare judges a source row against the target row of its record (tgt:
// the row at the target key of src's record). Values are compared as the
// target encodes them, cell by cell.
func (cp *Copier) Compare(src, tgt *hbapi.Result) (CompareOutcome, error) {
	a, _, aLive, err := cp.readAsTarget(src)
	if err != nil {
		return CompareSame, err
	}
	b, _, bLive, err := cp.ReadTarget(tgt)
	if err != nil {
		return CompareSame, err
	}
	switch {
	case aLive && !bLive:
		return CompareMissing, nil
	case !aLive && bLive:
		return CompareExtra, nil
	case !aLive:
		return CompareSame, nil
	}
	if cp.sameValues(a, b) {
		return CompareSame, nil
	}
	return CompareDifferent, nil
}

// sameValues reports whether a and b encode to the same target row.
func (cp *Copier) sameValues(a, b schema.Values) bool {
	var ra, rb schema.Row
	ea, eb := cp.dst.t.EncodeRow(&ra, &a), cp.dst.t.EncodeRow(&rb, &b)
	if ea != nil || eb != nil {
		return false
	}
	if string(ra.Key) != string(rb.Key) || len(ra.Cells) != len(rb.Cells) {
		return false
	}
	ca, cb := putCells(&ra), putCells(&rb)
	return slices.EqualFunc(ca, cb, func(x, y hbapi.PutCell) bool {
		return x.Family == y.Family && x.Qualifier == y.Qualifier && string(x.Value) == string(y.Value)
	})
}

// SourceKey returns the source row key of the record a target row holds
// (for Compare's pass over the target: records the source lacks).
func (cp *Copier) SourceKey(tgt *hbapi.Result) ([]byte, bool, error) {
	v, _, live, err := cp.ReadTarget(tgt)
	if err != nil || !live {
		return nil, false, err
	}
	convert(v, cp.dstType, cp.srcType)
	k, err := cp.src.t.AppendKey(nil, &v)
	if err != nil {
		return nil, false, cp.src.invalid(err)
	}
	return k, true, nil
}

// Close stops the background work of the Copier's stores.
func (cp *Copier) Close(ctx context.Context) error {
	return errors.Join(cp.src.Close(ctx), cp.dst.Close(ctx))
}
