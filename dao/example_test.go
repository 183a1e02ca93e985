package dao_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// exampleClient returns a fake HBase holding the empty seed SMS tables:
// the data table and its index, which every write of the SMS store keeps
// in step.
func exampleClient() *fake.Client {
	c, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	tbl, err := seeds.SMSTable()
	if err != nil {
		log.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.EnsureTables(context.Background(), admin.WithIndexes(tbl)...); err != nil {
		log.Fatal(err)
	}
	return c
}

// The messages of one mobile in a time window, newest first: one range
// scan over the reversed-mobile + reversed-timestamp row key.
func ExampleSMSRepo_Messages() {
	ctx := context.Background()
	sms, err := seedstore.NewSMS(exampleClient())
	if err != nil {
		log.Fatal(err)
	}
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	var batch []*seeds.SMS
	for h := 8; h <= 12; h++ {
		batch = append(batch, &seeds.SMS{
			Mobile: "13812345678", SentAt: day.Add(time.Duration(h) * time.Hour),
			Account: "shop", Content: fmt.Sprintf("order %d shipped", h), Delivered: true,
		})
	}
	if _, err := sms.PutBatch(ctx, batch); err != nil {
		log.Fatal(err)
	}
	for m, err := range sms.Messages(ctx, "13812345678", day.Add(9*time.Hour), day.Add(12*time.Hour), 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.SentAt.Format("15:04"), m.Content)
	}
	// Output:
	// 11:00 order 11 shipped
	// 10:00 order 10 shipped
	// 09:00 order 9 shipped
}

// A bad record is rejected before anything is written, with a typed error
// naming the field; in a batch, one bad record rejects the whole batch.
func ExampleRepo_PutBatch() {
	ctx := context.Background()
	sms, err := seedstore.NewSMS(exampleClient())
	if err != nil {
		log.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	results, err := sms.PutBatch(ctx, []*seeds.SMS{
		{Mobile: "13812345678", SentAt: at, Account: "shop", Content: "hi"},
		{Mobile: "1381234567x", SentAt: at, Account: "shop", Content: "bad mobile"},
		{Mobile: "13812345678", SentAt: at.Add(time.Second), Content: "no account"},
	})
	var be *dao.BatchError
	if errors.As(err, &be) {
		fmt.Println("rejected:", be.Rejected, "failed:", be.Indexes())
	}
	for i, res := range results {
		var ve *dao.ValidationError
		switch {
		case errors.As(res, &ve):
			fmt.Printf("record %d: field %s: %s\n", i, ve.Field, ve.Reason)
		case errors.Is(res, dao.ErrNotAttempted):
			fmt.Printf("record %d: not written\n", i)
		}
	}
	latest, err := sms.Latest(ctx, "13812345678", 10)
	fmt.Println("stored:", len(latest), err)
	// Output:
	// rejected: true failed: [1 2]
	// record 0: not written
	// record 1: field mobile: want 11 digits
	// record 2: field account: missing
	// stored: 0 <nil>
}

// Paging with a resume token: each page continues exactly after the last.
func ExampleRepo_Page() {
	ctx := context.Background()
	sms, err := seedstore.NewSMS(exampleClient())
	if err != nil {
		log.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for i := range 5 {
		m := &seeds.SMS{Mobile: "15900001111", SentAt: at.Add(time.Duration(i) * time.Minute), Account: "bank", Content: fmt.Sprint("code ", i)}
		if err := sms.Put(ctx, m); err != nil {
			log.Fatal(err)
		}
	}
	q := dao.Prefix(&seeds.SMS{Mobile: "15900001111"}, 1)
	for page := 1; ; page++ {
		items, next, err := sms.Page(ctx, q, 2)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print("page ", page, ":")
		for _, m := range items {
			fmt.Print(" ", m.Content)
		}
		fmt.Println()
		if next == "" {
			break
		}
		q.Resume = next
	}
	// Output:
	// page 1: code 4 code 3
	// page 2: code 2 code 1
	// page 3: code 0
}
