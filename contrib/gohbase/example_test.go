package gohbase_test

import (
	"context"
	"log"
	"time"

	"github.com/tsuna/gohbase"

	hbgohbase "github.com/hbkit/hbkit/contrib/gohbase"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// A gohbase user's existing clients serve hbkit's SMS store. (Not run:
// it needs an HBase; the integration tests run the same calls.)
func ExampleNew() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := gohbase.NewClient("127.0.0.1:2181") // the team's own clients
	defer client.Close()
	adminClient := gohbase.NewAdminClient("127.0.0.1:2181")

	c, err := hbgohbase.New(client, hbgohbase.WithAdminClient(adminClient))
	if err != nil {
		log.Fatal(err)
	}
	sms, err := seedstore.NewSMS(c)
	if err != nil {
		log.Fatal(err)
	}
	msgs, err := sms.MessagesOfAccountOnDate(ctx, "acme", time.Now())
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d messages", len(msgs))
}
