package dao_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// The README's section "Your own schema, with closures": a schema of
// one's own with an index, its tables created pre-split, records
// inserted, updated, deleted and queried through the index. usersDemo is that code; ExampleNew runs
// it on the in-memory fake and TestIntegrationREADME on HBase.

// User is seed 001's user record.
type User struct {
	UID      string
	Name     string
	Province string
	Age      int64
}

// usersTable declares the users table, keyed [md5(uid) 4 hex][uid] and
// pre-split into 16 regions, with an index keyed [province][age][uid].
func usersTable() (*schema.Table[User], error) {
	uid := keys.String("uid", func(u *User) string { return u.UID }, func(u *User, v string) { u.UID = v })
	key, err := keys.NewLayout(keys.MD5Hex("uid_md5", 4, func(u *User) string { return u.UID }), uid)
	if err != nil {
		return nil, err
	}
	byRegion, err := keys.NewLayout(
		keys.String("province", func(u *User) string { return u.Province }, func(u *User, v string) { u.Province = v }),
		keys.Decimal("age", 3, func(u *User) uint64 { return uint64(u.Age) }, func(u *User, v uint64) { u.Age = int64(v) }),
		uid,
	)
	if err != nil {
		return nil, err
	}
	fams := []schema.Family{{Name: "f", BloomFilter: schema.BloomRow}}
	return schema.New(schema.Spec[User]{
		Name: "users", Families: fams, Key: key, Splits: schema.Splits{Regions: 16},
		Columns: []schema.Column[User]{
			schema.StringColumn("name", "f", "n", func(u *User) string { return u.Name }, func(u *User, v string) { u.Name = v }),
			schema.StringColumn("province", "f", "p", func(u *User) string { return u.Province }, func(u *User, v string) { u.Province = v }),
			schema.Int64Column("age", "f", "a", func(u *User) int64 { return u.Age }, func(u *User, v int64) { u.Age = v }),
		},
		Validate: func(u *User) error {
			if u.Age < 0 || u.Age > 150 {
				return schema.Invalid("age", "want 0 to 150")
			}
			return nil
		},
		Indexes: []schema.IndexSpec[User]{{Name: "users_by_region", Families: fams, Key: byRegion, RowKeyQualifier: "row"}},
	})
}

// usersDemo creates the tables, writes and queries them, and prints what
// it finds.
func usersDemo(ctx context.Context, c interface {
	dao.Client
	admin.Client
}, w io.Writer, opts ...dao.Option) error {
	tbl, err := usersTable()
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

	for _, u := range []*User{
		{UID: "u1", Name: "Ann", Province: "辽宁省", Age: 20},
		{UID: "u2", Name: "Bo", Province: "辽宁省", Age: 20},
		{UID: "u3", Name: "Cy", Province: "辽宁省", Age: 31},
		{UID: "u4", Name: "Di", Province: "吉林省", Age: 20},
	} {
		if err := users.Insert(ctx, u); err != nil {
			return err
		}
	}
	err = users.Insert(ctx, &User{UID: "u1", Name: "Ann again", Province: "辽宁省", Age: 20})
	fmt.Fprintln(w, "insert u1 again: exists =", errors.Is(err, dao.ErrExists))
	if err := users.Put(ctx, &User{UID: "u2", Name: "Bo", Province: "吉林省", Age: 21}); err != nil { // Bo moves
		return err
	}
	if err := users.Delete(ctx, &User{UID: "u3"}); err != nil {
		return err
	}

	byRegion, err := users.Index("users_by_region")
	if err != nil {
		return err
	}
	for u, err := range byRegion.Find(ctx, dao.Eq(&User{Province: "辽宁省", Age: 20}, "province", "age")) {
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "辽宁省, 20:", u.UID, u.Name)
	}
	counts, err := byRegion.Count(ctx, dao.Eq(&User{Province: "吉林省"}, "province"), "age")
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "吉林省 by age:", counts)
	fmt.Fprintln(w, users.Put(ctx, &User{UID: "u5", Province: "辽宁省", Age: 200}))
	return users.Flush(ctx)
}

func ExampleNew() {
	c, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := usersDemo(context.Background(), c, os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// insert u1 again: exists = true
	// 辽宁省, 20: u1 Ann
	// 吉林省 by age: map[20:1 21:1]
	// dao: table "users": invalid record: age: want 0 to 150
}
