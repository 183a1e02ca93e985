package schema_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	. "github.com/hbkit/hbkit/schema"

	"github.com/hbkit/hbkit/keys"
)

// Three schemas of our own invention for the document tests, between them
// using every segment kind the seeds do not.

// Entry is a ledger entry: amounts in cents, booked on a business day in
// Asia/Shanghai.
type Entry struct {
	Account  string
	Booked   time.Time
	Seq      uint64
	Cents    int64
	Currency string
	Rate     float64
	Cleared  bool
}

var shanghai = mustZone("Asia/Shanghai")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// ledgerTable keys entries [hash bucket of account][account, fixed 12]
// [Shanghai date][reversed Shanghai time of day][entry, 8 decimal digits],
// with an index by day (a Java-bucketed account) and one by amount.
func ledgerTable() (*Table[Entry], error) {
	account := func(e *Entry) string { return e.Account }
	setAccount := func(e *Entry, v string) { e.Account = strings.TrimRight(v, " ") }
	booked := func(e *Entry) time.Time { return e.Booked }
	clock := func(e *Entry) time.Duration { return keys.TimeOfDayIn(e.Booked, shanghai) }
	seq := func(e *Entry) uint64 { return e.Seq }
	setSeq := func(e *Entry, v uint64) { e.Seq = v }
	cents := func(e *Entry) uint64 { return uint64(e.Cents) }
	key, err := keys.NewLayout(
		keys.HashBucket("bucket", 16, account, nil),
		keys.Fixed("account", 12, ' ', account, func(e *Entry, v string) { e.Account = v }),
		keys.DateIn("day", shanghai, booked, nil),
		keys.ReversedTimeOfDay("clock", clock, nil),
		keys.Decimal("entry", 8, seq, setSeq),
	)
	if err != nil {
		return nil, err
	}
	byDay, err := keys.NewLayout(
		keys.DateIn("day", shanghai, booked, nil),
		keys.JavaHashBucket("jbucket", 7, keys.JavaFloorMod, account, nil),
		keys.Fixed("account", 12, ' ', account, setAccount),
		keys.Decimal("entry", 8, seq, setSeq),
	)
	if err != nil {
		return nil, err
	}
	byAmount, err := keys.NewLayout(
		keys.Literal[Entry]("tag", "amt:"),
		keys.Decimal("amount", 12, cents, nil),
		keys.Fixed("account", 12, ' ', account, setAccount),
		keys.Decimal("entry", 8, seq, setSeq),
	)
	if err != nil {
		return nil, err
	}
	fam := []Family{{Name: "e", Versions: 3, Compression: CompressionZSTD, TTL: 400 * 24 * time.Hour, InMemory: On, BlockCache: Off}}
	return New(Spec[Entry]{
		Name:     "books:ledger",
		Families: fam,
		Key:      key,
		From:     map[string]string{"bucket": "account", "day": "booked", "clock": "booked"},
		Splits:   Splits{Regions: 16},
		Writes:   Mutable,
		Validate: func(e *Entry) error {
			if e.Currency == "" {
				return Invalid("currency", "missing")
			}
			return nil
		},
		Columns: []Column[Entry]{
			Int64Column("cents", "e", "c", func(e *Entry) int64 { return e.Cents }, func(e *Entry, v int64) { e.Cents = v }),
			StringColumn("currency", "e", "cur", func(e *Entry) string { return e.Currency }, func(e *Entry, v string) { e.Currency = v }),
			Float64Column("rate", "e", "r", func(e *Entry) float64 { return e.Rate }, func(e *Entry, v float64) { e.Rate = v }),
			BoolColumn("cleared", "e", "ok", func(e *Entry) bool { return e.Cleared }, func(e *Entry, v bool) { e.Cleared = v }),
			TimeColumn("booked", "e", "t", booked, func(e *Entry, v time.Time) { e.Booked = v }),
		},
		Indexes: []IndexSpec[Entry]{
			{
				Name: "books:ledger_by_day", Families: fam, Key: byDay,
				From:   map[string]string{"day": "booked", "jbucket": "account"},
				Splits: Splits{Keys: [][]byte{[]byte("2024"), []byte("2025")}}, Columns: []string{"cents", "currency"},
				RowKeyQualifier: "k",
			},
			{
				Name: "books:ledger_by_amount", Families: []Family{{Name: "a"}, {Name: "b"}}, Family: "b", Key: byAmount,
				From: map[string]string{"amount": "cents"},
			},
		},
	})
}

// Message is a chat message in a user's inbox; its folder moves.
type Message struct {
	User   string
	Conv   string
	Sent   time.Time
	ID     uint64
	Folder string
	Unread bool
	Body   string
	Flags  []byte
}

// chatTable keys messages [byte hash of user][user][reversed binary
// timestamp][id, 8 hex], indexed by folder: the index entry moves when
// the folder does.
func chatTable() (*Table[Message], error) {
	user := func(m *Message) string { return m.User }
	setUser := func(m *Message, v string) { m.User = v }
	ms := func(m *Message) int64 { return m.Sent.UnixMilli() }
	setMs := func(m *Message, v int64) { m.Sent = time.UnixMilli(v).UTC() }
	id := func(m *Message) uint64 { return m.ID }
	setID := func(m *Message, v uint64) { m.ID = v }
	key, err := keys.NewLayout(
		keys.HashBucketByte("shard", 32, user, nil),
		keys.String("user", user, setUser),
		keys.ReversedTimestampBinary("sent", ms, setMs),
		keys.Unique("id", 8, id, setID),
	)
	if err != nil {
		return nil, err
	}
	ix, err := keys.NewLayout(
		keys.Literal[Message]("tag", "f"),
		keys.MD5("user_md5", 8, user),
		keys.String("folder", func(m *Message) string { return m.Folder }, func(m *Message, v string) { m.Folder = v }),
		keys.ReversedTimestamp("sent", ms, setMs),
		keys.Unique("id", 8, id, setID),
		keys.TrailingString("user", user, setUser),
	)
	if err != nil {
		return nil, err
	}
	return New(Spec[Message]{
		Name:     "chat",
		Families: []Family{{Name: "m", BloomFilter: BloomRowCol, DataBlockEncoding: EncodingPrefix, BlockSize: 16 * 1024}},
		Key:      key,
		From:     map[string]string{"shard": "user"},
		Splits:   Splits{Regions: 8},
		Columns: []Column[Message]{
			StringColumn("conv", "m", "cv", func(m *Message) string { return m.Conv }, func(m *Message, v string) { m.Conv = v }),
			StringColumn("folder", "m", "f", func(m *Message) string { return m.Folder }, func(m *Message, v string) { m.Folder = v }),
			BoolColumn("unread", "m", "u", func(m *Message) bool { return m.Unread }, func(m *Message, v bool) { m.Unread = v }),
			StringColumn("body", "m", "b", func(m *Message) string { return m.Body }, func(m *Message, v string) { m.Body = v }),
			BytesColumn("flags", "m", "x", func(m *Message) []byte { return m.Flags }, func(m *Message, v []byte) { m.Flags = v }),
		},
		Indexes: []IndexSpec[Message]{{
			Name: "chat_by_folder", Families: []Family{{Name: "i"}}, Key: ix,
			From:    map[string]string{"user_md5": "user"},
			Columns: []string{"unread"}, RowKeyQualifier: "k",
		}},
	})
}

// Reading is one sensor reading.
type Reading struct {
	Site    string // four upper-case letters, custom codec
	Device  int64
	Channel int32
	Kind    int16
	At      time.Time
	Seq     uint64
	Salt    int
	Value   float64
	Unit    string
	Raw     []byte
}

// siteCodec writes a site as four letters, each mapped to its offset from 'A'.
func siteCodec() keys.Codec[string] {
	return keys.Codec[string]{
		Name: "site4", Width: 4, Order: keys.Ascending,
		Append: func(dst []byte, s string) ([]byte, error) {
			if len(s) != 4 {
				return dst, errors.New("want four letters")
			}
			for i := range 4 {
				if s[i] < 'A' || s[i] > 'Z' {
					return dst, errors.New("want upper-case letters")
				}
			}
			for i := range 4 {
				dst = append(dst, s[i]-'A')
			}
			return dst, nil
		},
		Decode: func(b []byte) (string, []byte, error) {
			if len(b) < 4 {
				return "", b, errors.New("short")
			}
			out := make([]byte, 4)
			for i := range 4 {
				if b[i] > 25 {
					return "", b, errors.New("not a letter")
				}
				out[i] = b[i] + 'A'
			}
			return string(out), b[4:], nil
		},
	}
}

// sensorTable keys readings [salt][literal][site][device][channel][kind]
// [reversed timestamp][seq], with an inverted index by unit and channel
// and an index led by a Java partition of the device. rnd draws the salts.
func sensorTable(rnd keys.RandSource) (*Table[Reading], error) {
	site := keys.Custom("site", siteCodec(), func(r *Reading) string { return r.Site }, func(r *Reading, v string) { r.Site = v })
	device := keys.JavaLong("device", func(r *Reading) int64 { return r.Device }, func(r *Reading, v int64) { r.Device = v })
	channel := keys.JavaInt("channel", func(r *Reading) int32 { return r.Channel }, func(r *Reading, v int32) { r.Channel = v })
	kind := keys.JavaShort("kind", func(r *Reading) int16 { return r.Kind }, func(r *Reading, v int16) { r.Kind = v })
	at := keys.ReversedTimestamp("at", func(r *Reading) int64 { return r.At.UnixMilli() }, func(r *Reading, v int64) { r.At = time.UnixMilli(v).UTC() })
	seq := keys.Uint64("seq", func(r *Reading) uint64 { return r.Seq }, func(r *Reading, v uint64) { r.Seq = v })
	key, err := keys.NewLayout(keys.Salt("salt", 8, rnd, func(r *Reading, v int) { r.Salt = v }),
		keys.Literal[Reading]("tag", "r"), site, device, channel, kind, at, seq)
	if err != nil {
		return nil, err
	}
	inv, err := keys.NewLayout(keys.Joined("_",
		keys.TextString("unit", func(r *Reading) string { return r.Unit }, func(r *Reading, v string) { r.Unit = v }),
		keys.TextInt("channel", func(r *Reading) int64 { return int64(r.Channel) }, nil))...)
	if err != nil {
		return nil, err
	}
	qual, err := keys.NewLayout(site, device, channel, kind, at, seq)
	if err != nil {
		return nil, err
	}
	part, err := keys.NewLayout(keys.JavaPartition("part", 4, func(r *Reading) int64 { return r.Device }, nil),
		device, at, channel, kind, site, seq)
	if err != nil {
		return nil, err
	}
	return New(Spec[Reading]{
		Name:     "readings",
		Families: []Family{{Name: "v", MinVersions: 1, Versions: 5}},
		Key:      key,
		Splits:   Splits{Regions: 8},
		Writes:   VerifyOnRead,
		Columns: []Column[Reading]{
			Float64Column("value", "v", "v", func(r *Reading) float64 { return r.Value }, func(r *Reading, v float64) { r.Value = v }),
			StringColumn("unit", "v", "u", func(r *Reading) string { return r.Unit }, func(r *Reading, v string) { r.Unit = v }),
			BytesColumn("raw", "v", "raw", func(r *Reading) []byte { return r.Raw }, func(r *Reading, v []byte) { r.Raw = v }),
		},
		Indexes: []IndexSpec[Reading]{
			{Name: "readings_by_unit", Families: []Family{{Name: "u"}}, Key: inv, Qualifier: qual},
			{Name: "readings_by_part", Families: []Family{{Name: "p"}}, Key: part, From: map[string]string{"part": "device"},
				Splits: Splits{Regions: 4}},
		},
	})
}

// sensorWide is the wide layout of readings: one row per device and hour,
// one column per reading at its offset in the hour.
func sensorWide() (*WideTable[Reading], error) {
	at := func(r *Reading) int64 { return r.At.UnixMilli() }
	setAt := func(r *Reading, v int64) { r.At = time.UnixMilli(v).UTC() }
	key, err := keys.NewLayout(
		keys.ReversedDigits("device", 6, func(r *Reading) string { return r.Site }, func(r *Reading, v string) { r.Site = v }),
		keys.TimeBase("at", time.Hour, at, setAt),
	)
	if err != nil {
		return nil, err
	}
	qual, err := keys.NewLayout(
		keys.TimeOffset("at", time.Hour, at, setAt),
		keys.Digits("channel", 3, func(r *Reading) string { return r.Unit }, func(r *Reading, v string) { r.Unit = v }),
	)
	if err != nil {
		return nil, err
	}
	return NewWide(WideSpec[Reading]{
		Name: "readings_wide", Families: []Family{{Name: "w"}}, Key: key, Qualifier: qual,
		Value:  Float64Column("value", "w", "", func(r *Reading) float64 { return r.Value }, func(r *Reading, v float64) { r.Value = v }),
		Splits: Splits{Keys: [][]byte{{'3'}, {'6'}}},
	})
}

// newRand is the deterministic salt source of a test.
func newRand() keys.RandSource { return rand.NewPCG(1, 2) }
