package keys_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// SMS is the message record of the seed SMS design.
type SMS struct {
	Mobile string // 11 digits
	SentMs int64  // milliseconds since the Unix epoch
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

// One mobile's messages sent between two instants, both included, newest first. The
// reversed timestamp makes the newer instant (2000) the start of the scan and the older
// one (1000) its end: Stop is the key just after rev(1000).
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

// The seed SMS data table is pre-split on the first two digits of the reversed mobile
// into 20 regions.
func ExampleLayout_Splits() {
	splits, err := smsLayout().Splits(20)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("SPLITS =>", keys.ShellSplits(splits))
	// Output:
	// SPLITS => ['05', '10', '15', '20', '25', '30', '35', '40', '45', '50', '55', '60', '65', '70', '75', '80', '85', '90', '95']
}

func ExampleDecimalPrefixSplits() {
	for _, regions := range []int{10, 20} {
		width := 1
		if regions > 10 {
			width = 2
		}
		splits, err := keys.DecimalPrefixSplits(regions, width)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(keys.ShellSplits(splits))
	}
	// Output:
	// ['1', '2', '3', '4', '5', '6', '7', '8', '9']
	// ['05', '10', '15', '20', '25', '30', '35', '40', '45', '50', '55', '60', '65', '70', '75', '80', '85', '90', '95']
}

func ExampleHexStringSplit() {
	splits, err := keys.HexStringSplit(5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(keys.ShellSplits(splits))
	// Output:
	// ['33333333', '66666666', '99999999', 'cccccccc']
}

func ExampleUniformSplit() {
	splits, err := keys.UniformSplit(4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(keys.ShellSplits(splits))
	// Output:
	// ["@\x00\x00\x00\x00\x00\x00\x00", "\x80\x00\x00\x00\x00\x00\x00\x00", "\xc0\x00\x00\x00\x00\x00\x00\x00"]
}

func ExampleSampleSplits() {
	var samples [][]byte
	for i := range 1000 {
		key, _ := keys.AppendMD5Hex(nil, fmt.Sprint(i), 8)
		samples = append(samples, key)
	}
	splits, err := keys.SampleSplits(samples, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(keys.ShellSplits(splits))
	// Output:
	// ['3a835d32', '81e74d67', 'c24cd76e']
}

func ExampleAppendReversedDigits() {
	key, err := keys.AppendReversedDigits([]byte("sms:"), "13812345678", 11)
	fmt.Printf("%s %v\n", key, err)

	_, err = keys.AppendReversedDigits(nil, "1381234567", 11)
	fmt.Println(errors.Is(err, keys.ErrWidth), err)
	// Output:
	// sms:87654321831 <nil>
	// true keys: reversed digits: want exactly 11 digits (value "1381234567")
}

func ExampleAppendReversedTimestamp() {
	older, _ := keys.AppendReversedTimestamp(nil, time.Date(2017, 8, 22, 6, 22, 34, 0, time.UTC).UnixMilli())
	newer, _ := keys.AppendReversedTimestamp(nil, time.Date(2017, 8, 22, 6, 22, 35, 0, time.UTC).UnixMilli())
	fmt.Printf("%s\n%s\n", older, newer)
	_, err := keys.AppendReversedTimestamp(nil, -1)
	fmt.Println(errors.Is(err, keys.ErrOutOfRange))
	// Output:
	// 9223370533471821807
	// 9223370533471820807
	// true
}

// The seed index key: 'x' (FNV-1a hash of the mobile, mod 10) + yyyyMMdd + md5 of the
// account (16 hex) + mobile + reversed time of day (9). Its table is split on '1'..'9'.
func ExampleHashBucket() {
	type Msg struct {
		Mobile  string
		Account string
		Sent    time.Time
	}
	index, err := keys.NewLayout(
		keys.HashBucket("x", 10, func(m *Msg) string { return m.Mobile }, nil),
		keys.Date("day", func(m *Msg) time.Time { return m.Sent }, nil),
		keys.MD5Hex("account", 16, func(m *Msg) string { return m.Account }),
		keys.Digits("mobile", 11, func(m *Msg) string { return m.Mobile }, nil),
		keys.ReversedTimeOfDay("time", func(m *Msg) time.Duration { return keys.TimeOfDay(m.Sent) }, nil),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := Msg{Mobile: "13812345678", Account: "hello", Sent: time.Date(2017, 12, 12, 9, 30, 15, 250e6, time.UTC)}
	key, err := index.Append(nil, &m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (%d bytes)\n", key, len(key))
	splits, _ := index.Splits(10)
	fmt.Println(keys.ShellSplits(splits))
	// All of one mobile's index rows of one day: a single prefix scan.
	start, stop, _ := index.PrefixRange(&m, 2)
	fmt.Printf("[%s, %s)\n", start, stop)
	// Output:
	// 5201712125d41402abc4b2a7613812345678142944749 (45 bytes)
	// ['1', '2', '3', '4', '5', '6', '7', '8', '9']
	// [520171212, 520171213)
}

// The seed index query "account A on day D" does not know the mobile, so it cannot
// compute the hash bucket: SpreadRanges scans each of the 10 buckets between the same
// day and account prefix.
func ExampleLayout_SpreadRanges() {
	type Msg struct {
		Mobile  string
		Account string
		Sent    time.Time
	}
	index, err := keys.NewLayout(
		keys.HashBucket("x", 10, func(m *Msg) string { return m.Mobile }, nil),
		keys.Date("day", func(m *Msg) time.Time { return m.Sent }, nil),
		keys.MD5Hex("account", 16, func(m *Msg) string { return m.Account }),
		keys.Digits("mobile", 11, func(m *Msg) string { return m.Mobile }, nil),
		keys.ReversedTimeOfDay("time", func(m *Msg) time.Duration { return keys.TimeOfDay(m.Sent) }, nil),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	q := Msg{Account: "hello", Sent: time.Date(2017, 12, 12, 0, 0, 0, 0, time.UTC)}
	// Spread the fields before "day"; take day and account from q.
	ranges, err := index.SpreadRanges(&q, &q, index.SegmentIndex("day"), index.SegmentIndex("account")+1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rg := range ranges {
		fmt.Printf("[%s, %s)\n", rg.Start, rg.Stop)
	}
	// Output:
	// [0201712125d41402abc4b2a76, 0201712125d41402abc4b2a77)
	// [1201712125d41402abc4b2a76, 1201712125d41402abc4b2a77)
	// [2201712125d41402abc4b2a76, 2201712125d41402abc4b2a77)
	// [3201712125d41402abc4b2a76, 3201712125d41402abc4b2a77)
	// [4201712125d41402abc4b2a76, 4201712125d41402abc4b2a77)
	// [5201712125d41402abc4b2a76, 5201712125d41402abc4b2a77)
	// [6201712125d41402abc4b2a76, 6201712125d41402abc4b2a77)
	// [7201712125d41402abc4b2a76, 7201712125d41402abc4b2a77)
	// [8201712125d41402abc4b2a76, 8201712125d41402abc4b2a77)
	// [9201712125d41402abc4b2a76, 9201712125d41402abc4b2a77)
}

// A salted key spreads writes over N buckets; reading it back costs N scans.
func ExampleSalt() {
	type Event struct{ At uint64 }
	r := rand.New(rand.NewPCG(1, 2)) // a fixed seed, for a reproducible example
	l, err := keys.NewLayout(
		keys.Salt[Event]("salt", 4, r, nil),
		keys.Decimal("at", 13, func(e *Event) uint64 { return e.At }, nil),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	ranges, err := l.PrefixRanges(&Event{At: 1503382954000}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rg := range ranges {
		fmt.Printf("[%s, %s)\n", rg.Start, rg.Stop)
	}
	// Output:
	// [01503382954000, 01503382954001)
	// [11503382954000, 11503382954001)
	// [21503382954000, 21503382954001)
	// [31503382954000, 31503382954001)
}

func ExampleAppendString() {
	var key []byte
	key = keys.AppendString(key, "host-a")
	key = keys.AppendString(key, "disk\x00full")
	fmt.Printf("%q\n", key)
	host, rest, _ := keys.DecodeString(key)
	event, _, _ := keys.DecodeString(rest)
	fmt.Printf("%q %q\n", host, event)
	// Output:
	// "host-a\x00\x01disk\x00\xfffull\x00\x01"
	// "host-a" "disk\x00full"
}

// A Java service salts its keys with Math.abs(account.hashCode()) % 10; Go code
// reading the same table computes the same buckets. The formula matters:
// "acct-42" has a negative hash code, so the three rules disagree.
func ExampleJavaBucket() {
	for _, rule := range []keys.JavaBucketRule{keys.JavaAbs, keys.JavaMask, keys.JavaFloorMod} {
		b, err := keys.JavaBucket("acct-42", 10, rule)
		fmt.Println(rule, b, err)
	}
	// Output:
	// abs 8 <nil>
	// mask 0 <nil>
	// floormod 2 <nil>
}

// A segment of one's own: a UUID as the 16 bytes Java writes with
// Bytes.add(Bytes.toBytes(u.getMostSignificantBits()), Bytes.toBytes(u.getLeastSignificantBits())),
// followed by a Java long. The codec's Keyspace (random UUIDs spread evenly over raw
// bytes) gives the layout its split keys; Range, Parts and Decode work as for the
// built-in segments.
func ExampleCustom() {
	type Event struct {
		Device [16]byte
		Seq    int64
	}
	uuid := keys.Codec[[16]byte]{
		Name:   "uuid",
		Append: func(dst []byte, v [16]byte) ([]byte, error) { return append(dst, v[:]...), nil },
		Decode: func(b []byte) (v [16]byte, rest []byte, err error) {
			if len(b) < len(v) {
				return v, b, fmt.Errorf("want 16 bytes, have %d", len(b))
			}
			copy(v[:], b)
			return v, b[len(v):], nil
		},
		Width:    16,
		Order:    keys.Ascending,
		Keyspace: keys.Keyspace{Radix: 256, Width: 16, Uniform: true},
	}
	l, err := keys.NewLayout(
		keys.Custom("device", uuid, func(e *Event) [16]byte { return e.Device }, func(e *Event, v [16]byte) { e.Device = v }),
		keys.JavaLong("seq", func(e *Event) int64 { return e.Seq }, func(e *Event, v int64) { e.Seq = v }),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	dev := [16]byte{0x9f, 0x1c, 0x3b, 0x42, 0x6e, 0x0d, 0x4a, 0x7b, 0x8c, 0x55, 0x21, 0x90, 0xde, 0xad, 0xbe, 0xef}
	key, err := l.Append(nil, &Event{Device: dev, Seq: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("key    %x\n", key)
	seg := l.Segments()[0]
	fmt.Println("device:", seg.Kind, seg.Codec, seg.Width, seg.Order)

	splits, err := l.Splits(4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("splits", keys.ShellSplits(splits))

	start, stop, err := l.Range(&Event{Device: dev, Seq: 1}, &Event{Device: dev, Seq: 9}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("start  %x\nstop   %x\n", start, stop)
	_, _, err = l.Range(&Event{Device: dev, Seq: -1}, &Event{Device: dev, Seq: 9}, 2)
	fmt.Println(errors.Is(err, keys.ErrDiscontiguousRange), err)

	var back Event
	fmt.Println(l.Decode(key, &back), back.Seq, back.Device == dev)
	err = l.Decode(key[:10], &back)
	fmt.Println(errors.Is(err, keys.ErrInvalidEncoding), err)
	// Output:
	// key    9f1c3b426e0d4a7b8c552190deadbeef0000000000000007
	// device: custom uuid 16 ascending
	// splits ['@', "\x80", "\xc0"]
	// start  9f1c3b426e0d4a7b8c552190deadbeef0000000000000001
	// stop   9f1c3b426e0d4a7b8c552190deadbeef000000000000000a
	// true keys: seq: bounds differ in sign: Java's big-endian encoding sorts negatives after non-negatives, so the values between them are two key ranges; scan [lo, -1] and [0, hi] apart
	// <nil> 7 true
	// true keys: device: want 16 bytes, have 10
}

// Seed 001's inverted-index row, province + "_" + age, as Java's string
// concatenation writes it, and seed 003's partition key with its split keys.
func ExampleJoined() {
	type User struct {
		Province string
		Age      int64
	}
	index, err := keys.NewLayout(keys.Joined("_",
		keys.TextString("province", func(u *User) string { return u.Province }, func(u *User, v string) { u.Province = v }),
		keys.TextInt("age", func(u *User) int64 { return u.Age }, func(u *User, v int64) { u.Age = v }),
	)...)
	if err != nil {
		fmt.Println(err)
		return
	}
	key, err := index.Append(nil, &User{Province: "辽宁省", Age: 20})
	fmt.Printf("%s %x %v\n", key, key, err)
	var u User
	fmt.Println(index.Decode([]byte("吉林省_21"), &u), u.Province, u.Age)
	_, err = index.Append(nil, &User{Province: "辽宁_省", Age: 20})
	fmt.Println(errors.Is(err, keys.ErrDelimiter), err)
	// Output:
	// 辽宁省_20 e8bebde5ae81e79c815f3230 <nil>
	// <nil> 吉林省 21
	// true keys: province: contains or runs into the delimiter "_" (value "辽宁_省")
}

// Seed 003's PartitionRowKeyManager: Bytes.add(Bytes.toBytes(id % 10), Bytes.toBytes(id)),
// pre-split at Bytes.toBytes((long) i) for i = 1 .. 9.
func ExampleJavaPartition() {
	type Row struct{ ID int64 }
	l, err := keys.NewLayout(
		keys.JavaPartition("partition", 10, func(r *Row) int64 { return r.ID }, nil),
		keys.JavaLong("id", func(r *Row) int64 { return r.ID }, func(r *Row, v int64) { r.ID = v }),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	key, err := l.Append(nil, &Row{ID: 12345})
	fmt.Printf("%x %v\n", key, err)
	splits, err := l.Splits(10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(keys.ShellSplits(splits[:3]), "...", len(splits), "keys")
	// Output:
	// 00000000000000050000000000003039 <nil>
	// ["\x00\x00\x00\x00\x00\x00\x00\x01", "\x00\x00\x00\x00\x00\x00\x00\x02", "\x00\x00\x00\x00\x00\x00\x00\x03"] ... 9 keys
}
