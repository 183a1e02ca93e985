package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

// User is a record. Its fields are named uid, name, province and age:
// the Go names in lower case (a tag such as `hbkit:"user_id"` renames one).
type User struct {
	UID      string
	Name     string
	Province string
	Age      int64
}

// users is the table: keyed [md5(uid), 4 hex digits][uid] so writes spread
// over its 16 regions, with an index keyed [province][age][uid].
var users = schema.Document{
	Name:     "users",
	Families: []schema.DocFamily{{Name: "f"}},
	Key: []schema.DocSegment{
		{Name: "uid_md5", Kind: "md5_hex", Width: 4, From: "uid"},
		{Name: "uid", Kind: "string"},
	},
	Splits: &schema.DocSplits{Regions: 16},
	Columns: []schema.DocColumn{
		{Name: "name", Family: "f", Qualifier: "n"},
		{Name: "province", Family: "f", Qualifier: "p"},
		{Name: "age", Family: "f", Qualifier: "a"},
	},
	Indexes: []schema.DocIndex{{
		Name: "users_by_region", Families: []schema.DocFamily{{Name: "f"}},
		Key: []schema.DocSegment{
			{Name: "province", Kind: "string"},
			{Name: "age", Kind: "decimal", Width: 3},
			{Name: "uid", Kind: "string"},
		},
	}},
}

// run creates the tables, writes users, and finds them by the index.
func run(ctx context.Context, c dao.Conn, w io.Writer, opts ...dao.Option) error {
	store, err := dao.Open[User](ctx, c, users, opts...)
	if err != nil {
		return err
	}
	defer store.Flush(ctx)
	for _, u := range []User{
		{UID: "u1", Name: "Ann", Province: "辽宁省", Age: 20},
		{UID: "u2", Name: "Bo", Province: "辽宁省", Age: 20},
		{UID: "u3", Name: "Cy", Province: "吉林省", Age: 31},
	} {
		if err := store.Put(ctx, &u); err != nil { // Put: insert or replace
			return err
		}
	}
	err = store.Insert(ctx, &User{UID: "u1", Name: "Ann", Province: "辽宁省", Age: 20})
	fmt.Fprintln(w, "insert u1 again:", errors.Is(err, dao.ErrExists)) // Insert: only a new key
	if err := store.Put(ctx, &User{UID: "u2", Name: "Bo", Province: "吉林省", Age: 21}); err != nil {
		return err // Bo moved: Put replaces the record and moves its index entry
	}
	if err := store.Delete(ctx, &User{UID: "u3"}); err != nil {
		return err
	}

	byRegion, err := store.Index("users_by_region")
	if err != nil {
		return err
	}
	for u, err := range byRegion.Find(ctx, dao.Eq(&User{Province: "吉林省"}, "province")) {
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "吉林省:", u.UID, u.Name, u.Age)
	}
	return nil
}
