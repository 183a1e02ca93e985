package jobs_test

import (
	"context"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
)

// BenchmarkCopyActions measures the client's work per copied row: a
// source row decoded by its document and encoded as the target's writes
// (an inbox row into the hash-bucketed key; with the target's index, and
// without).
func BenchmarkCopyActions(b *testing.B) {
	for _, indexed := range []bool{false, true} {
		name := "plain"
		if indexed {
			name = "indexed"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			c := newFake(b)
			src := createTable(b, c, parseDoc(b, inboxDoc("inbox")))
			loadInbox(b, src, 10, 100)
			dst := parseDoc(b, inboxBucketedDoc("inbox_v2"))
			if !indexed {
				dst.Indexes = nil
			}
			cp, err := dao.NewCopier(c, dao.CopySpec{Source: parseDoc(b, inboxDoc("inbox")), Target: dst})
			if err != nil {
				b.Fatal(err)
			}
			var rows []*hbapi.Result
			for r, err := range hbapi.ScanAll(ctx, c, &hbapi.Scan{Table: "inbox"}) {
				if err != nil {
					b.Fatal(err)
				}
				rows = append(rows, r)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var acts []hbapi.Action
			for i := range b.N {
				r := rows[i%len(rows)]
				acts, _, err = cp.Actions(acts[:0], r.Row(), r, 0)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
