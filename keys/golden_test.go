package keys

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current encoders")

// TestGoldenKeys pins the storage format: each seed key design, shown per segment
// readably and in hex. A diff here means existing rows would no longer be found: a data
// migration, not a refactoring. Refresh with go test ./keys -run TestGoldenKeys -update
// only when the change is intended.
func TestGoldenKeys(t *testing.T) {
	var out strings.Builder
	show := func(name string, key []byte, parts [][]byte, segs []Segment) {
		out.WriteString("# " + name + "\n")
		out.WriteString("key  " + quoteBytes(key) + "\n")
		out.WriteString("hex  " + hexString(key) + "\n")
		for i, p := range parts {
			kind := segs[i].Kind.String()
			if segs[i].Codec != "" {
				kind += " " + segs[i].Codec
			}
			out.WriteString("  " + segs[i].Name + " (" + kind + ", " + segs[i].Order.String() + ")  " +
				quoteBytes(p) + "  " + hexString(p) + "\n")
		}
		out.WriteString("\n")
	}
	at := time.Date(2017, 12, 12, 9, 30, 15, 250e6, time.UTC)

	sms := mustLayout(t, smsFields(true)...)
	idx := indexLayout(t)
	m := msg{Mobile: "13812345678", SentMs: at.UnixMilli(), Seq: 7, Account: "hello"}
	for _, c := range []struct {
		name string
		l    *Layout[msg]
	}{
		{"seed 000 SMS data key: reversed mobile + reversed timestamp + unique", sms},
		{"seed 000 SMS index key: hash(mobile)%10 + date + md5(account) + mobile + reversed time of day", idx},
	} {
		key, err := c.l.Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := c.l.Parts(key)
		if err != nil {
			t.Fatal(err)
		}
		show(c.name, key, parts, c.l.Segments())
	}

	type logRow struct {
		Host, Event string
		At          int64
	}
	logs := mustLayout(t,
		MD5("host", 16, func(r *logRow) string { return r.Host }),
		MD5("event", 16, func(r *logRow) string { return r.Event }),
		ReversedTimestampBinary("at", func(r *logRow) int64 { return r.At }, nil),
	)
	lr := logRow{Host: "host-1.example.com", Event: "disk-full", At: at.UnixMilli()}
	key, err := logs.Append(nil, &lr)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := logs.Parts(key)
	if err != nil {
		t.Fatal(err)
	}
	show("seed 004 log data: md5(host) + md5(event) + reversed timestamp (binary)", key, parts, logs.Segments())

	type order struct {
		Customer uint64
		Order    string
		Amount   int64
	}
	orders := mustLayout(t,
		Uint64("customer", func(o *order) uint64 { return o.Customer }, nil),
		Literal[order]("type", "2"),
		String("order", func(o *order) string { return o.Order }, nil),
		Int64("amount", func(o *order) int64 { return o.Amount }, nil),
	)
	showKey(t, show, "seed 004 customer/order: customer + type '2' + escaped order number + signed amount", orders,
		&order{Customer: 42, Order: "SO\x00-7", Amount: -5})

	showKey(t, show, "seed 001 inverted index row: province + \"_\" + age, as Java concatenates them",
		joinedLayout(t), &user{Province: "辽宁省", Age: 20})
	part := partitionLayout(t, 10)
	showKey(t, show, "seed 003 partition key: Bytes.toBytes(id % 10) + Bytes.toBytes(id)", part, &partRow{ID: 12345})
	showKey(t, show, "seed 003 hash key: md5hex(Bytes.toBytes(id))[:8] + Bytes.toBytes(id)", hashLayout(t), &partRow{ID: 12345})

	type custRow struct {
		B     byte
		Long  int64
		Int   int32
		Short int16
		UID   string
	}
	javaInts := mustLayout(t,
		Custom("b", byteCodec, func(r *custRow) byte { return r.B }, nil),
		JavaLong("long", func(r *custRow) int64 { return r.Long }, nil),
		JavaInt("int", func(r *custRow) int32 { return r.Int }, nil),
		JavaShort("short", func(r *custRow) int16 { return r.Short }, nil),
		TrailingString("uid", func(r *custRow) string { return r.UID }, nil),
	)
	showKey(t, show, "custom byte + Java long -2, int 20, short -32768 + trailing uid", javaInts,
		&custRow{B: 9, Long: -2, Int: 20, Short: -32768, UID: "u1"})

	out.WriteString("# split keys\n")
	for _, c := range []struct {
		name string
		fn   func() ([][]byte, error)
	}{
		{"SMS data, 20 regions", func() ([][]byte, error) { return sms.Splits(20) }},
		{"SMS index, 10 regions", func() ([][]byte, error) { return idx.Splits(10) }},
		{"HexStringSplit(10)", func() ([][]byte, error) { return HexStringSplit(10) }},
		{"DecimalStringSplit(7)", func() ([][]byte, error) { return DecimalStringSplit(7) }},
		{"UniformSplit(5)", func() ([][]byte, error) { return UniformSplit(5) }},
		{"seed 003 partitions, 10 regions", func() ([][]byte, error) { return part.Splits(10) }},
		{"custom byte keyspace (16 values), 4 regions", func() ([][]byte, error) { return javaInts.Splits(4) }},
	} {
		s, err := c.fn()
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(c.name + "  " + ShellSplits(s) + "\n")
	}

	path := filepath.Join("testdata", "keys.golden")
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("keys differ from %s; if the storage format change is intended, run with -update.\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// showKey encodes rec with l and shows the key and its parts.
func showKey[T any](t *testing.T, show func(string, []byte, [][]byte, []Segment), name string, l *Layout[T], rec *T) {
	t.Helper()
	key, err := l.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := l.Parts(key)
	if err != nil {
		t.Fatal(err)
	}
	show(name, key, parts, l.Segments())
}

// quoteBytes renders bytes like HBase's Bytes.toStringBinary: printable ASCII as is,
// other bytes as \xHH, between double quotes.
func quoteBytes(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteString(`\x`)
		sb.WriteByte(lowerHex[c>>4])
		sb.WriteByte(lowerHex[c&0xF])
	}
	sb.WriteByte('"')
	return sb.String()
}
