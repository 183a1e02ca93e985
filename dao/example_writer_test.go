package dao_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// A repository whose writes go through the secondary index: dao validates
// and batches, the index package writes each data row with its entries,
// and both sides' queries see the same messages.
func ExampleWithWriter() {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	tbl, err := schema.SMSTable()
	if err != nil {
		log.Fatal(err)
	}
	defs := []schema.Definition{tbl}
	for _, ix := range tbl.Indexes() {
		defs = append(defs, ix)
	}
	for _, d := range defs { // the data table and the index table
		desc := hbase.TableDescriptor{Name: d.Name().String()}
		for _, f := range d.Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if err := c.CreateTable(ctx, desc, d.SplitKeys()); err != nil {
			log.Fatal(err)
		}
	}
	ix, err := index.NewSMS(c)
	if err != nil {
		log.Fatal(err)
	}
	sms, err := dao.NewSMS(c, dao.WithWriter[schema.SMS](ix))
	if err != nil {
		log.Fatal(err)
	}
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	msgs := []*schema.SMS{
		{Mobile: "13812345678", SentAt: day.Add(9 * time.Hour), Account: "shop", Content: "order shipped"},
		{Mobile: "13987654321", SentAt: day.Add(10 * time.Hour), Account: "shop", Content: "order delivered", Delivered: true},
		{Mobile: "13812345678", SentAt: day.Add(11 * time.Hour), Account: "bank", Content: "code 1234"},
	}
	if _, err := sms.PutBatch(ctx, msgs); err != nil {
		log.Fatal(err)
	}
	// The data table: one mobile's messages, newest first.
	for m, err := range sms.Messages(ctx, "13812345678", day, day.Add(24*time.Hour), 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("mobile:", m.SentAt.Format("15:04"), m.Account, m.Content)
	}
	// The index: one account's messages on a day.
	byAccount, err := ix.MessagesOfAccountOnDate(ctx, "shop", day)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range byAccount {
		fmt.Println("account:", m.SentAt.Format("15:04"), m.Mobile, m.Content)
	}
	// Output:
	// mobile: 11:00 bank code 1234
	// mobile: 09:00 shop order shipped
	// account: 10:00 13987654321 order delivered
	// account: 09:00 13812345678 order shipped
}
