package dao_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
)

// The README's section on seed 001's inverted index: Example_invertedIndex
// runs it on the in-memory fake and TestIntegrationREADMEInverted on
// HBase.

// seed001Demo writes users of seed 001's TestTable, whose inverted index
// (TestTable_province_age) has one row per province and age and one
// column per uid, moves and deletes some, and reads the index.
func seed001Demo(ctx context.Context, c interface {
	dao.Client
	admin.Client
}, w io.Writer, opts ...dao.Option) error {
	tbl, err := seeds.TestTable()
	if err != nil {
		return err
	}
	users, err := dao.New(c, tbl, opts...)
	if err != nil {
		return err
	}
	a, err := admin.New(c)
	if err != nil {
		return err
	}
	if _, err := a.EnsureTables(ctx, users.Tables()...); err != nil {
		return err
	}
	for _, u := range []*seeds.User{
		{UID: "10001", Province: "辽宁省", Age: 20, Gender: "f"},
		{UID: "10002", Province: "辽宁省", Age: 20, Gender: "m"},
		{UID: "10003", Province: "辽宁省", Age: 20, Gender: "f"},
		{UID: "10004", Province: "辽宁省", Age: 21, Gender: "m"},
		{UID: "10005", Province: "吉林省", Age: 20, Gender: "f"},
	} {
		if err := users.Put(ctx, u); err != nil {
			return err
		}
	}
	byValue, err := users.Index(seeds.TestTableIndexName)
	if err != nil {
		return err
	}
	liaoning20 := dao.Eq(&seeds.User{Province: "辽宁省", Age: 20}, "province", "age")
	report := func(when string) error {
		n, err := byValue.Count(ctx, liaoning20, "")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: 辽宁省_20 counts %d:", when, n[""])
		for u, err := range byValue.Keys(ctx, liaoning20) {
			if err != nil {
				return err
			}
			fmt.Fprintf(w, " %s", u.UID)
		}
		fmt.Fprintln(w)
		return nil
	}
	if err := report("written"); err != nil {
		return err
	}
	// 10002 turns 21: its column moves to the row 辽宁省_21. 10003 leaves.
	if err := users.Put(ctx, &seeds.User{UID: "10002", Province: "辽宁省", Age: 21, Gender: "m"}); err != nil {
		return err
	}
	if err := users.Delete(ctx, &seeds.User{UID: "10003"}); err != nil {
		return err
	}
	if err := report("moved and deleted"); err != nil {
		return err
	}
	for u, err := range byValue.Find(ctx, dao.Eq(&seeds.User{Province: "辽宁省", Age: 21}, "province", "age")) {
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "辽宁省_21: %s %s %d %s\n", u.UID, u.Province, u.Age, u.Gender)
	}
	rep, err := users.Check(ctx, index.ModeVerify)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "verify: %d rows, %d entries, %d missing, %d orphaned, %d stale\n", rep.DataRows, rep.Entries, rep.Missing, rep.Orphaned, rep.Stale)
	return nil
}

func Example_invertedIndex() {
	c, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := seed001Demo(context.Background(), c, os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// written: 辽宁省_20 counts 3: 10001 10002 10003
	// moved and deleted: 辽宁省_20 counts 1: 10001
	// 辽宁省_21: 10002 辽宁省 21 m
	// 辽宁省_21: 10004 辽宁省 21 m
	// verify: 4 rows, 4 entries, 0 missing, 0 orphaned, 0 stale
}
