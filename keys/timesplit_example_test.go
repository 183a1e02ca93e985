package keys_test

import (
	"fmt"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// A log event's timestamp split for a wide row: the start of its five
// minutes in the row key, its offset in the column qualifier. Decoding
// both gives the exact instant back.
func ExampleTimeBase() {
	type Event struct {
		Host string
		At   int64 // Unix ms
	}
	at := func(e *Event) int64 { return e.At }
	setAt := func(e *Event, ms int64) { e.At = ms }
	row, _ := keys.NewLayout(
		keys.String("host", func(e *Event) string { return e.Host }, func(e *Event, v string) { e.Host = v }),
		keys.TimeBase("at", 5*time.Minute, at, setAt),
	)
	qual, _ := keys.NewLayout(keys.TimeOffset("at", 5*time.Minute, at, setAt))

	in := Event{Host: "web01", At: 1503382954000} // 2017-08-22 06:22:34 UTC
	rk, _ := row.Append(nil, &in)
	qk, _ := qual.Append(nil, &in)
	fmt.Printf("row key   %x\nqualifier %x\n", rk, qk)

	var out Event
	fmt.Println(row.Decode(rk, &out), qual.Decode(qk, &out), out.Host, time.UnixMilli(out.At).UTC().Format(time.RFC3339Nano))
	// Output:
	// row key   776562303100018000015e08990680
	// qualifier 025990
	// <nil> <nil> web01 2017-08-22T06:22:34Z
}
