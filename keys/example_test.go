package keys_test

import (
	"fmt"

	"github.com/hbkit/hbkit/keys"
)

// SMS is the message record of the seed SMS design.
type SMS struct {
	Mobile string // 11 digits
	SentMs int64  // milliseconds since the Unix epoch
	Seq    uint64 // unique suffix against collisions
}

func smsLayout() *keys.Layout[SMS] {
	l, err := keys.NewLayout(
		keys.ReversedDigits("mobile", 11,
			func(m *SMS) string { return m.Mobile }, func(m *SMS, v string) { m.Mobile = v }),
		keys.ReversedTimestamp("sent",
			func(m *SMS) int64 { return m.SentMs }, func(m *SMS, v int64) { m.SentMs = v }),
	)
	if err != nil {
		panic(err)
	}
	return l
}

// The seed SMS data key: reversed mobile (11) + reversed timestamp (19).
func ExampleLayout_Append() {
	l := smsLayout()
	key, err := l.Append(nil, &SMS{Mobile: "13812345678", SentMs: 1503382954000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (%d bytes)\n", key, len(key))

	var back SMS
	if err := l.Decode(key, &back); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Mobile, back.SentMs)
	// Output:
	// 876543218319223370533471821807 (30 bytes)
	// 13812345678 1503382954000
}

// One mobile's messages sent between two instants, both included, newest first.
func ExampleLayout_Range() {
	l := smsLayout()
	from := &SMS{Mobile: "13812345678", SentMs: 1000}
	to := &SMS{Mobile: "13812345678", SentMs: 2000}
	start, stop, err := l.Range(from, to, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("start %s\nstop  %s\n", start, stop)
	// Output:
	// start 876543218319223372036854773807
	// stop  876543218319223372036854774808
}
