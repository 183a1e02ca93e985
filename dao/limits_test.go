package dao_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// blob is a record with one large column.
type blob struct {
	ID      string
	Payload []byte
}

// blobTable is a table keyed by ID with the column payload (d:p).
func blobTable(t testing.TB, name string) *schema.Table[blob] {
	t.Helper()
	key, err := keys.NewLayout(keys.String("id", func(b *blob) string { return b.ID }, func(b *blob, v string) { b.ID = v }))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[blob]{
		Name:     name,
		Families: []schema.Family{{Name: "d"}},
		Key:      key,
		Columns: []schema.Column[blob]{
			schema.BytesColumn("payload", "d", "p", func(b *blob) []byte { return b.Payload }, func(b *blob, v []byte) { b.Payload = v }),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// batchSizes records the bytes of the Puts of each Batch call.
type batchSizes struct {
	dao.Client
	mu    sync.Mutex
	sizes [][]int
}

func (b *batchSizes) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
	var sizes []int
	for _, a := range actions {
		if p, ok := a.(*hbase.Put); ok {
			v, _ := p.Value("d", "p")
			sizes = append(sizes, len(v))
		}
	}
	b.mu.Lock()
	b.sizes = append(b.sizes, sizes)
	b.mu.Unlock()
	return b.Client.Batch(ctx, actions)
}

// TestPutBatchCutsByBytes: a PutBatch is sent in chunks of at most the
// client's write buffer (a record larger than it alone), as well as of
// WithBatchSize records.
func TestPutBatchCutsByBytes(t *testing.T) {
	tests := []struct {
		name       string
		n, size    int
		wantChunks int
	}{
		{"50 of 3 MB", 50, 3 << 20, 50},
		{"50 of 300 KB", 50, 300 << 10, 9}, // 6 records per 2 MiB
		{"50 of 10 B", 50, 10, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			tbl := blobTable(t, "blobs")
			createTable(t, f, tbl)
			c := &batchSizes{Client: f}
			r, err := dao.New(c, tbl, dao.WithWriteConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			recs := make([]*blob, tc.n)
			payload := make([]byte, tc.size)
			for i := range recs {
				recs[i] = &blob{ID: fmt.Sprintf("b%03d", i), Payload: payload}
			}
			results, err := r.PutBatch(context.Background(), recs)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range results {
				if e != nil {
					t.Errorf("record %d: %v", i, e)
				}
			}
			if len(c.sizes) != tc.wantChunks {
				t.Errorf("%d Batch calls, want %d", len(c.sizes), tc.wantChunks)
			}
			for i, chunk := range c.sizes {
				total := 0
				for _, s := range chunk {
					total += s
				}
				if len(chunk) > 1 && total > hbase.DefaultWriteBufferSize {
					t.Errorf("chunk %d: %d records, %d bytes over the write buffer", i, len(chunk), total)
				}
			}
		})
	}
}

// TestPutBatchRefusesLargeCell: a record with a cell larger than HBase
// takes is invalid, its error naming the field and not the row key; as
// for any invalid record, nothing of the batch is written.
func TestPutBatchRefusesLargeCell(t *testing.T) {
	f := newFake(t)
	tbl := blobTable(t, "blobs")
	createTable(t, f, tbl)
	r, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "+4915112345678"
	recs := []*blob{{ID: "ok", Payload: []byte("small")}, {ID: secret, Payload: make([]byte, 20<<20)}}
	results, err := r.PutBatch(context.Background(), recs)
	var ve *dao.ValidationError
	if !errors.As(results[1], &ve) || ve.Field != "payload" || !errors.Is(results[1], hbase.ErrCellTooLarge) || !errors.Is(results[1], dao.ErrInvalidRecord) {
		t.Fatalf("record 1: %v, want a *dao.ValidationError for field payload wrapping hbase.ErrCellTooLarge", results[1])
	}
	if !errors.Is(results[0], dao.ErrNotAttempted) || err == nil {
		t.Errorf("record 0: %v, batch: %v; want ErrNotAttempted and a batch error", results[0], err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(results[1].Error(), secret) {
		t.Errorf("error %q quotes the row key", err)
	}
	if err := r.Put(context.Background(), recs[1]); !errors.Is(err, hbase.ErrCellTooLarge) || strings.Contains(err.Error(), secret) {
		t.Errorf("Put: %v, want ErrCellTooLarge without the key", err)
	}
}
