package index_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// The seed SMS store (package dao), whose writes run through this
// package's protocol, on the in-memory fake: write messages, ask for an
// account's messages of a day and its counts per day, and verify that
// the index agrees with the data table.
func Example() {
	ctx := context.Background()
	c, _ := fake.New()
	defer c.Close()
	if err := createSMSTables(ctx, c, seeds.SMSTableName, seeds.SMSIndexTableName); err != nil {
		fmt.Println(err)
		return
	}
	s, err := seedstore.NewSMS(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	day := time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)
	_, err = s.PutBatch(ctx, []*seeds.SMS{
		{Mobile: "13812345678", SentAt: day.Add(9 * time.Hour), Account: "acme", Content: "hello"},
		{Mobile: "13900001111", SentAt: day.Add(17 * time.Hour), Account: "acme", Content: "bye"},
		{Mobile: "13700002222", SentAt: day.Add(25 * time.Hour), Account: "acme", Content: "next day"},
		{Mobile: "13600003333", SentAt: day.Add(10 * time.Hour), Account: "globex", Content: "other"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, _ := s.MessagesOfAccountOnDate(ctx, "acme", day)
	for _, m := range msgs {
		fmt.Println(m.SentAt.Format(time.TimeOnly), m.Mobile, m.Content)
	}
	counts, _ := s.CountPerDay(ctx, "acme", day, day.AddDate(0, 0, 1))
	for _, dc := range counts {
		fmt.Println(dc.Date.Format(time.DateOnly), dc.Count)
	}
	err = s.Put(ctx, &seeds.SMS{Mobile: "138123", SentAt: day, Account: "acme"})
	fmt.Println(err != nil && errors.Is(err, dao.ErrInvalidRecord))
	rep, _ := s.Check(ctx, index.ModeVerify)
	fmt.Printf("rows %d, entries %d, clean %v\n", rep.DataRows, rep.Entries, rep.Clean())
	// Output:
	// 17:00:00 13900001111 bye
	// 09:00:00 13812345678 hello
	// 2024-03-05 2
	// 2024-03-06 1
	// true
	// rows 4, entries 4, clean true
}
