package dao_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// noteDoc is a note store of our own: notes keyed by owner then number,
// in the write mode given ("" strict), with an index by tag when indexed.
func noteDoc(t *testing.T, name, key, writes string, indexed bool) schema.Document {
	t.Helper()
	ix := ""
	if indexed {
		ix = fmt.Sprintf(`, "indexes": [{"name": %q, "families": [{"name": "i"}],
		  "key": [{"name": "tag", "kind": "string"}, {"name": "owner", "kind": "string"}, {"name": "n", "kind": "uint64"}]}]`, name+"_by_tag")
	}
	mode := ""
	if writes != "" {
		mode = fmt.Sprintf(`, "writes": %q`, writes)
	}
	doc, err := schema.ParseDocument([]byte(fmt.Sprintf(`{"version": 1, "name": %q,
	  "families": [{"name": "f"}],
	  "fields": [{"name": "owner", "type": "string"}, {"name": "n", "type": "uint64"},
	             {"name": "tag", "type": "string"}, {"name": "text", "type": "string"}],
	  "key": %s,
	  "columns": [{"name": "tag", "family": "f", "qualifier": "g", "type": "string"},
	              {"name": "text", "family": "f", "qualifier": "t", "type": "string"}]%s%s}`, name, key, mode, ix)))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

const (
	ownerKey  = `[{"name": "owner", "kind": "string"}, {"name": "n", "kind": "uint64"}]`
	bucketKey = `[{"name": "b", "kind": "hash_bucket", "buckets": 8, "from": "owner"}, {"name": "owner", "kind": "string"}, {"name": "n", "kind": "uint64"}]`
	saltKey   = `[{"name": "s", "kind": "salt", "buckets": 8}, {"name": "owner", "kind": "string"}, {"name": "n", "kind": "uint64"}]`
	byTagKey  = `[{"name": "b", "kind": "hash_bucket", "buckets": 8, "from": "tag"}, {"name": "owner", "kind": "string"}, {"name": "n", "kind": "uint64"}]`
)

func openValues(t *testing.T, c dao.Client, doc schema.Document, opts ...dao.Option) (*dao.Repo[schema.Values], error) {
	t.Helper()
	if len(doc.Indexes) > 0 {
		doc = doc.WithRowPointers()
	}
	tbl, err := schema.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	return dao.New(c, tbl, opts...)
}

// NewCopier and WithMirror refuse what they cannot copy exactly, before
// anything is written.
func TestCopierRefuses(t *testing.T) {
	c := newFake(t)
	notes := noteDoc(t, "notes", ownerKey, "", false)
	other := notes
	other.Fields = append([]schema.DocField(nil), notes.Fields...)
	other.Fields[3].Type = "int64"
	cases := []struct {
		name   string
		src    schema.Document
		dst    schema.Document
		mirror bool
	}{
		{"random salt", notes, noteDoc(t, "notes2", saltKey, "", false), false},
		{"field of another type", notes, other, false},
		{"insert-only source", noteDoc(t, "notes", ownerKey, "insert-only", true), noteDoc(t, "notes2", bucketKey, "", false), true},
		{"target key from a column", notes, noteDoc(t, "notes2", byTagKey, "", false), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := dao.NewCopier(c, dao.CopySpec{Source: tc.src, Target: tc.dst})
			if !tc.mirror {
				if !errors.Is(err, dao.ErrInvalidOption) {
					t.Fatalf("NewCopier: got %v, want ErrInvalidOption", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := openValues(t, c, tc.src, dao.WithMirror(cp)); !errors.Is(err, dao.ErrInvalidOption) {
				t.Fatalf("WithMirror: got %v, want ErrInvalidOption", err)
			}
		})
	}
	if _, err := openValues(t, c, notes, dao.WithMirror(nil)); !errors.Is(err, dao.ErrInvalidOption) {
		t.Fatalf("WithMirror(nil): got %v", err)
	}
}

// A mirrored store writes both tables at one version, in every mode that
// keeps its records; Compare finds them the same, and a record deleted
// through the mirror is gone from both.
func TestMirrorModes(t *testing.T) {
	for _, mode := range []string{"strict", "mutable", "verify-on-read", "none"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			c := newFake(t)
			writes := mode
			if mode == "none" { // no index
				writes = ""
			}
			src := noteDoc(t, "notes", ownerKey, writes, mode != "none")
			dst := noteDoc(t, "notes2", bucketKey, "", true)
			for _, d := range []schema.Document{src, dst} {
				tbl, err := schema.Open(d)
				if err != nil {
					t.Fatal(err)
				}
				createTables(t, c, tbl)
			}
			cp, err := dao.NewCopier(c, dao.CopySpec{Source: src, Target: dst})
			if err != nil {
				t.Fatal(err)
			}
			store, err := openValues(t, c, src, dao.WithMirror(cp))
			if err != nil {
				t.Fatal(err)
			}
			target, err := openValues(t, c, dst)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				v := schema.Values{"owner": fmt.Sprintf("o%d", i%3), "n": uint64(i), "tag": "a", "text": "first"}
				if err := store.Put(ctx, &v); err != nil {
					t.Fatal(err)
				}
				v["tag"], v["text"] = "b", "second"
				if err := store.Put(ctx, &v); err != nil {
					t.Fatal(err)
				}
				if i%4 == 0 {
					if err := store.Delete(ctx, &v); err != nil {
						t.Fatal(err)
					}
				}
			}
			for i := range 20 {
				key := schema.Values{"owner": fmt.Sprintf("o%d", i%3), "n": uint64(i)}
				got, ok, err := target.Get(ctx, &key)
				switch {
				case err != nil:
					t.Fatal(err)
				case i%4 == 0 && ok:
					t.Fatalf("note %d: deleted through the mirror, still in the target", i)
				case i%4 != 0 && (!ok || (*got)["text"] != "second" || (*got)["tag"] != "b"):
					t.Fatalf("note %d: got %v, %v", i, got, ok)
				}
				srcKey, err := store.Table().AppendKey(nil, &key)
				if err != nil {
					t.Fatal(err)
				}
				dstKey, err := target.Table().AppendKey(nil, &key)
				if err != nil {
					t.Fatal(err)
				}
				a, err := c.Get(ctx, &hbapi.Get{Table: "notes", Row: srcKey})
				if err != nil {
					t.Fatal(err)
				}
				b, err := c.Get(ctx, &hbapi.Get{Table: "notes2", Row: dstKey})
				if err != nil {
					t.Fatal(err)
				}
				if o, err := cp.Compare(a, b); err != nil || o != dao.CompareSame {
					t.Fatalf("note %d: compare %v, %v", i, o, err)
				}
			}
		})
	}
}
