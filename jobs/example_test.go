package jobs_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/jobs"
)

// counter is a Task that counts the rows of its units, committing every
// 100 rows.
type counter struct{ c hbapi.DataClient }

func (counter) Sources() []string { return []string{"orders"} }

func (t counter) Run(ctx context.Context, u jobs.Unit, after []byte, commit func([]byte, jobs.Counts) error) error {
	start := u.Start
	if after != nil {
		start = append(bytes.Clone(after), 0) // the row after the checkpoint
	}
	var n int64
	var last []byte
	for r, err := range hbapi.ScanAll(ctx, t.c, &hbapi.Scan{Table: u.Table, StartRow: start, StopRow: u.Stop}) {
		if err != nil {
			return err
		}
		n, last = n+1, bytes.Clone(r.Row())
		if n == 100 {
			if err := commit(last, jobs.Counts{"rows": n}); err != nil {
				return err
			}
			n = 0
		}
	}
	if n == 0 {
		return nil
	}
	return commit(last, jobs.Counts{"rows": n})
}

func ExampleRunTask() {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	desc := hbapi.TableDescriptor{Name: "orders", Families: []hbapi.FamilyDescriptor{{Name: "o"}}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("order-4"), []byte("order-8")}); err != nil {
		log.Fatal(err)
	}
	for i := range 1000 {
		p := &hbapi.Put{Table: "orders", Row: fmt.Appendf(nil, "order-%03d", i), Cells: []hbapi.PutCell{{Family: "o", Qualifier: "n", Value: []byte("1")}}}
		if err := c.Put(ctx, p); err != nil {
			log.Fatal(err)
		}
	}
	if err := jobs.EnsureStore(ctx, c); err != nil { // the checkpoint table, hbkit_jobs
		log.Fatal(err)
	}
	spec := jobs.Spec{Kind: jobs.KindVerify, Table: "orders"}
	r, err := jobs.RunTask(ctx, c, spec, counter{c}, jobs.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d/%d units, %d rows, complete %v\n", r.Job, r.UnitsDone, r.Units, r.Rows, r.Complete)
	// Output:
	// verify/orders: 3/3 units, 1000 rows, complete true
}
