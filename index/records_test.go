package index_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
)

// TestBatchReportsEachFailedRecordOnce: when the conditional data-row
// writes of some records of a batch fail, the store's batch error lists
// each failed record once, in order, with the protocol's *StepError as its
// error (wrapped once, not again at every layer), and every other record
// is written. The batch runs in chunks (WithBatchSize) so that the
// failures fall in different chunks.
func TestBatchReportsEachFailedRecordOnce(t *testing.T) {
	ctx := context.Background()
	for _, op := range []string{"put", "delete"} {
		t.Run(op, func(t *testing.T) {
			b, c := newFakeBackend(t)
			var recs []*seeds.SMS
			for i := range 5 {
				recs = append(recs, msg(40+i, "acme", time.Duration(i)*time.Minute))
			}
			failing := []int{1, 4}
			tbl, err := seeds.SMSTable()
			if err != nil {
				t.Fatal(err)
			}
			var failKeys [][]byte
			for _, i := range failing {
				k, err := tbl.AppendKey(nil, recs[i])
				if err != nil {
					t.Fatal(err)
				}
				failKeys = append(failKeys, k)
			}
			m := scripted(t, c)
			m.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
				func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
					if !dataWrite(acts) {
						return c.Batch(ctx, acts)
					}
					res := make([]hbase.BatchResult, len(acts))
					be := &hbase.BatchError{}
					for i, a := range acts {
						if slices.ContainsFunc(failKeys, func(k []byte) bool { return bytes.Equal(k, a.(*hbase.CheckAndMutate).Row) }) {
							res[i] = hbase.BatchResult{Err: errInjected}
							be.Failed = append(be.Failed, hbase.ActionError{Index: i, Action: a, Err: errInjected})
							continue
						}
						r, err := c.Batch(ctx, []hbase.Action{a})
						if err != nil {
							return nil, err
						}
						res[i] = r[0]
					}
					if len(be.Failed) == 0 {
						return res, nil
					}
					return res, be
				}).AnyTimes()
			healthy := b.sms(t, dao.WithAsyncVerify(false))
			faulty := b.smsOver(t, m, dao.WithBatchSize(2), dao.WithAsyncVerify(false))
			var results []error
			if op == "put" {
				results, err = faulty.PutBatch(ctx, recs)
			} else {
				if _, err := healthy.PutBatch(ctx, recs); err != nil {
					t.Fatal(err)
				}
				results, err = faulty.DeleteBatch(ctx, recs)
			}
			var be *dao.BatchError
			if !errors.As(err, &be) || be.Rejected {
				t.Fatalf("got %v, want a *dao.BatchError of written records", err)
			}
			if got := be.Indexes(); !slices.Equal(got, failing) {
				t.Fatalf("failed records %v, want %v, each once", got, failing)
			}
			if len(results) != len(recs) {
				t.Fatalf("%d results for %d records", len(results), len(recs))
			}
			for i, res := range results {
				if failed := slices.Contains(failing, i); failed != (res != nil) {
					t.Errorf("record %d: result %v, want failed=%v", i, res, failed)
				}
			}
			for _, f := range be.Failed {
				if f.Err != results[f.Index] {
					t.Errorf("record %d: batch error %v, result %v; want the same error", f.Index, f.Err, results[f.Index])
				}
				var se *index.StepError
				if !errors.As(f.Err, &se) || se.Step.Phase != index.PhaseData || !errors.Is(f.Err, errInjected) {
					t.Errorf("record %d: %v, want a *index.StepError at the data write", f.Index, f.Err)
				}
				if n := strings.Count(f.Err.Error(), errInjected.Error()); n != 1 {
					t.Errorf("record %d: %q names the failure %d times, want once", f.Index, f.Err, n)
				}
			}
			var se *index.StepError
			if !errors.As(err, &se) || !errors.Is(err, errInjected) {
				t.Errorf("errors.As/Is through the batch error: %v", err)
			}
			// The data table: the failed records as before the batch, the
			// others written.
			var want []string
			for i := len(recs) - 1; i >= 0; i-- {
				if slices.Contains(failing, i) == (op == "delete") {
					want = append(want, recs[i].Mobile)
				}
			}
			assertMessages(t, healthy, "acme", want)
		})
	}
}
