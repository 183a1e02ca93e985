package dao_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Post is a record of a feed keyed [md5(user) 4 hex][user][reversed
// time]: a user's posts are one run of rows, newest first, and the hash
// spreads the users over the regions.
type Post struct {
	User string
	At   time.Time
	Text string
}

func feedTable(t testing.TB, name string) *schema.Table[Post] {
	t.Helper()
	key, err := keys.NewLayout(
		keys.MD5Hex("user_md5", 4, func(p *Post) string { return p.User }),
		keys.String("user", func(p *Post) string { return p.User }, func(p *Post, v string) { p.User = v }),
		keys.ReversedTimestamp("at", func(p *Post) int64 { return p.At.UnixMilli() }, func(p *Post, v int64) { p.At = time.UnixMilli(v).UTC() }),
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[Post]{
		Name: name, Families: []schema.Family{{Name: "f"}}, Key: key, Splits: schema.Splits{Regions: 8},
		From: map[string]string{"user_md5": "user"},
		Columns: []schema.Column[Post]{
			schema.StringColumn("text", "f", "t", func(p *Post) string { return p.Text }, func(p *Post, v string) { p.Text = v }),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// scanCounter counts the scans a store opens.
type scanCounter struct {
	dao.Client
	scans atomic.Int64
}

func (c *scanCounter) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	c.scans.Add(1)
	return c.Client.Scan(ctx, s)
}

var feedT0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// fillFeed writes posts posts of each of users users.
func fillFeed(t testing.TB, ctx context.Context, r *dao.Repo[Post], users, posts int) {
	t.Helper()
	var all []*Post
	for u := range users {
		for i := range posts {
			all = append(all, &Post{User: fmt.Sprintf("user%02d", u), At: feedT0.Add(time.Duration(i) * time.Minute), Text: fmt.Sprintf("post %d of user%02d", i, u)})
		}
	}
	if _, err := r.PutBatch(ctx, all); err != nil {
		t.Fatal(err)
	}
}

// TestWhereOnHashLedDataKey: Eq and Range by the user of a key led by the
// md5 of the user (Spec.From) read one range, as Prefix does, not one per
// value of the hash (65,536); the answer is the user's latest posts,
// newest first.
func TestWhereOnHashLedDataKey(t *testing.T) {
	tbl := feedTable(t, "feed_where")
	f := newFake(t)
	createTable(t, f, tbl)
	testWhereOnHashLedDataKey(t, tbl, moveBackend{c: f})
}

func testWhereOnHashLedDataKey(t *testing.T, tbl *schema.Table[Post], b moveBackend) {
	ctx := context.Background()
	c := &scanCounter{Client: b.c}
	r, err := dao.New(c, tbl, b.opts...)
	if err != nil {
		t.Fatal(err)
	}
	fillFeed(t, ctx, r, 5, 30)
	tests := []struct {
		name  string
		q     dao.Query[Post]
		first time.Time
		n     int
	}{
		{"Eq user", dao.Eq(&Post{User: "user03"}, "user"), feedT0.Add(29 * time.Minute), 20},
		{"Range user and time", dao.Range(&Post{User: "user03", At: feedT0.Add(10 * time.Minute)}, &Post{User: "user03", At: feedT0.Add(4 * time.Minute)}, "user", "at"),
			feedT0.Add(10 * time.Minute), 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.scans.Store(0)
			q := tt.q
			q.Limit = 20
			got, err := dao.Collect(r.Scan(ctx, q))
			if err != nil {
				t.Fatal(err)
			}
			if n := c.scans.Load(); n != 1 {
				t.Errorf("scans: got %d, want 1 (the user's one range)", n)
			}
			if len(got) != tt.n {
				t.Fatalf("posts: got %d, want %d", len(got), tt.n)
			}
			for i, p := range got {
				if p.User != "user03" {
					t.Errorf("post %d is %s's", i, p.User)
				}
				if want := tt.first.Add(-time.Duration(i) * time.Minute); !p.At.Equal(want) {
					t.Errorf("post %d at %v, want %v (newest first)", i, p.At, want)
				}
			}
			c.scans.Store(0)
			page, _, err := r.Page(ctx, tt.q, 5)
			if err != nil {
				t.Fatal(err)
			}
			if n := c.scans.Load(); n != 1 || len(page) != 5 {
				t.Errorf("Page: %d scans and %d posts, want 1 and 5", n, len(page))
			}
		})
	}
}
