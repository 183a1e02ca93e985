package dao_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/seeds"
)

// Seed 004's log data on steroids: events stored one column each in rows
// of [host][event type][five minutes]; a time range of one series is one
// scan, in time order, and Counts gives the events per row from the keys
// alone.
func ExampleWide() {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	types, err := seeds.LogTypes()
	if err != nil {
		log.Fatal(err)
	}
	logs, err := seeds.LogDataWide()
	if err != nil {
		log.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, types, logs); err != nil {
		log.Fatal(err)
	}
	uids, err := dao.NewUIDs(c, seeds.LogTypesName, []dao.UIDKind{
		{Name: seeds.LogHostKind, Width: seeds.LogHostWidth}, {Name: seeds.LogEventKind, Width: seeds.LogEventWidth},
	})
	if err != nil {
		log.Fatal(err)
	}
	w, err := dao.NewWide(c, logs, dao.WithUIDs(uids))
	if err != nil {
		log.Fatal(err)
	}
	ev := func(at time.Time, msg string) *seeds.UIDLogEvent {
		return &seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: "web01", Event: "login", At: at, Message: msg}}
	}
	t0 := time.Date(2017, 8, 22, 6, 22, 34, 0, time.UTC)
	var batch []*seeds.UIDLogEvent
	for i := range 6 {
		batch = append(batch, ev(t0.Add(time.Duration(i)*2*time.Minute), fmt.Sprint("user ", i)))
	}
	if _, err := w.PutBatch(ctx, batch); err != nil {
		log.Fatal(err)
	}
	q := dao.WideQuery[seeds.UIDLogEvent]{From: ev(t0.Add(time.Minute), ""), To: ev(t0.Add(9*time.Minute), "")}
	for e, err := range w.Scan(ctx, q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.At.Format("15:04:05"), e.Host, e.Event, e.Message)
	}
	for rc, err := range w.Counts(ctx, q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("row", rc.Row.At.Format("15:04"), rc.Columns, "columns")
	}
	// Output:
	// 06:24:34 web01 login user 1
	// 06:26:34 web01 login user 2
	// 06:28:34 web01 login user 3
	// 06:30:34 web01 login user 4
	// row 06:20 1 columns
	// row 06:25 2 columns
	// row 06:30 1 columns
}
