package keys

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// javaIntVectors were printed by Java 17 (ByteBuffer.putLong/putInt/putShort, which is
// what HBase's Bytes.toBytes writes); TestJavaEncodingsMatchJava checks random values
// against a live JVM too.
var javaIntVectors = []struct {
	kind string
	v    int64
	hex  string
}{
	{"long", 0, "0000000000000000"},
	{"long", 1, "0000000000000001"},
	{"long", -1, "ffffffffffffffff"},
	{"long", math.MaxInt64, "7fffffffffffffff"},
	{"long", math.MinInt64, "8000000000000000"},
	{"long", 1503382954000, "0000015e089b6010"},
	{"int", -2, "fffffffe"},
	{"int", math.MaxInt32, "7fffffff"},
	{"int", math.MinInt32, "80000000"},
	{"short", math.MinInt16, "8000"},
	{"short", 20, "0014"},
	{"short", -1, "ffff"},
}

// appendJava encodes v as the Java type kind names ("long", "int" or "short").
func appendJava(dst []byte, kind string, v int64) []byte {
	switch kind {
	case "long":
		return AppendJavaLong(dst, v)
	case "int":
		return AppendJavaInt(dst, int32(v))
	}
	return AppendJavaShort(dst, int16(v))
}

func TestJavaIntsKnown(t *testing.T) {
	for _, tt := range javaIntVectors {
		got := appendJava(nil, tt.kind, tt.v)
		if hexString(got) != tt.hex {
			t.Errorf("Java %s %d: got %x, want %s", tt.kind, tt.v, got, tt.hex)
		}
		var back int64
		var rest []byte
		var err error
		in := append(got, 'r')
		switch tt.kind {
		case "long":
			back, rest, err = DecodeJavaLong(in)
		case "int":
			var v int32
			v, rest, err = DecodeJavaInt(in)
			back = int64(v)
		default:
			var v int16
			v, rest, err = DecodeJavaShort(in)
			back = int64(v)
		}
		if err != nil || back != tt.v || string(rest) != "r" {
			t.Errorf("decode Java %s %x: %d, rest %q, %v; want %d", tt.kind, got, back, rest, err, tt.v)
		}
	}
}

// cmpNegativesLast is the NegativesLast order of two's complement values: numeric
// within a sign, every non-negative value before every negative one.
func cmpNegativesLast(a, b int64) int {
	if (a < 0) != (b < 0) {
		if a < 0 {
			return 1
		}
		return -1
	}
	return cmp.Compare(a, b)
}

func TestJavaIntsProperties(t *testing.T) {
	gen := func(r *rand.Rand) int64 {
		switch r.IntN(4) {
		case 0:
			return int64(r.IntN(5)) - 2
		case 1:
			return math.MaxInt64 - int64(r.IntN(3))
		case 2:
			return math.MinInt64 + int64(r.IntN(3))
		}
		return int64(r.Uint64())
	}
	checkCodec(t, gen,
		func(dst []byte, v int64) ([]byte, error) { return AppendJavaLong(dst, v), nil },
		DecodeJavaLong, eqv[int64], cmpNegativesLast, 1, showI[int64])
	checkCodec(t, func(r *rand.Rand) int32 { return int32(gen(r) >> (r.IntN(2) * 32)) },
		func(dst []byte, v int32) ([]byte, error) { return AppendJavaInt(dst, v), nil },
		DecodeJavaInt, eqv[int32], func(a, b int32) int { return cmpNegativesLast(int64(a), int64(b)) }, 1, showI[int32])
	checkCodec(t, func(r *rand.Rand) int16 { return int16(gen(r) >> (r.IntN(4) * 16)) },
		func(dst []byte, v int16) ([]byte, error) { return AppendJavaShort(dst, v), nil },
		DecodeJavaShort, eqv[int16], func(a, b int16) int { return cmpNegativesLast(int64(a), int64(b)) }, 1,
		func(v int16) string { return itoa(int(v)) })
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"long", firstErr(DecodeJavaLong([]byte("1234567")))},
		{"int", firstErr(DecodeJavaInt([]byte("123")))},
		{"short", firstErr(DecodeJavaShort([]byte("1")))},
	} {
		if !errors.Is(tt.err, ErrShortInput) {
			t.Errorf("decode a short Java %s: %v, want ErrShortInput", tt.name, tt.err)
		}
	}
}

func firstErr[V any](_ V, _ []byte, err error) error { return err }

// partRow is the record of seed 003's keys: a long id, its partition, and the hash
// prefix of its hash design.
type partRow struct {
	ID        int64
	Partition int64
}

// partitionLayout is seed 003's PartitionRowKeyManager key:
// Bytes.add(Bytes.toBytes(id % n), Bytes.toBytes(id)).
func partitionLayout(t testing.TB, n int) *Layout[partRow] {
	return mustLayout(t,
		JavaPartition("partition", n, func(r *partRow) int64 { return r.ID }, func(r *partRow, v int64) { r.Partition = v }),
		JavaLong("id", func(r *partRow) int64 { return r.ID }, func(r *partRow, v int64) { r.ID = v }),
	)
}

// hashLayout is seed 003's hash key:
// Bytes.add(MD5Hash.getMD5AsHex(Bytes.toBytes(id)).substring(0, 8).getBytes(), Bytes.toBytes(id)).
func hashLayout(t testing.TB) *Layout[partRow] {
	return mustLayout(t,
		MD5Hex("hash", 8, func(r *partRow) string { return string(AppendJavaLong(nil, r.ID)) }),
		JavaLong("id", func(r *partRow) int64 { return r.ID }, func(r *partRow, v int64) { r.ID = v }),
	)
}

// TestSeed003Keys reproduces seed 003's keys and split keys byte for byte, as Java 17
// printed them.
func TestSeed003Keys(t *testing.T) {
	for _, tt := range []struct {
		name string
		l    *Layout[partRow]
		id   int64
		want string
	}{
		{"partition 10, id 1", partitionLayout(t, 10), 1, "00000000000000010000000000000001"},
		{"partition 10, id 12345", partitionLayout(t, 10), 12345, "00000000000000050000000000003039"},
		{"partition 20, id 1", partitionLayout(t, 20), 1, "00000000000000010000000000000001"},
		{"hash, id 1", hashLayout(t), 1, "66613561643961380000000000000001"},
		{"hash, id 74414", hashLayout(t), 74414, "633761656632303000000000000122ae"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key, err := tt.l.Append(nil, &partRow{ID: tt.id})
			if err != nil {
				t.Fatal(err)
			}
			if hexString(key) != tt.want {
				t.Fatalf("got %x (%s), want %s", key, quoteBytes(key), tt.want)
			}
			var back partRow
			if err := tt.l.Decode(key, &back); err != nil || back.ID != tt.id {
				t.Fatalf("Decode(%x) = %+v, %v; want id %d", key, back, err, tt.id)
			}
		})
	}
	splits, err := partitionLayout(t, 10).Splits(10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range splits {
		got = append(got, hexString(s))
	}
	// calcSplitKeys of PartitionRowKeyManager with 10 partitions.
	want := "0000000000000001,0000000000000002,0000000000000003,0000000000000004,0000000000000005," +
		"0000000000000006,0000000000000007,0000000000000008,0000000000000009"
	if strings.Join(got, ",") != want {
		t.Errorf("Splits(10) = %s, want %s", strings.Join(got, ","), want)
	}
	// The seed's report of 20 partitions starts its regions at \x00..\x01 .. \x00..\x13.
	splits, err = partitionLayout(t, 20).Splits(20)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 19 || quoteBytes(splits[18]) != `"\x00\x00\x00\x00\x00\x00\x00\x13"` {
		t.Errorf("Splits(20) = %s, want 19 keys ending in 19", ShellSplits(splits))
	}
	// Fewer regions than partitions: whole partitions per region.
	splits, err = partitionLayout(t, 20).Splits(4)
	if err != nil || ShellSplits(splits) != `["\x00\x00\x00\x00\x00\x00\x00\x05", "\x00\x00\x00\x00\x00\x00\x00\x0a", "\x00\x00\x00\x00\x00\x00\x00\x0f"]` {
		t.Errorf("Splits(4) of 20 partitions = %s, %v", ShellSplits(splits), err)
	}
}

func TestJavaPartitionErrors(t *testing.T) {
	l := partitionLayout(t, 10)
	if _, err := l.Append(nil, &partRow{ID: -1}); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("negative id: %v, want ErrOutOfRange", err)
	}
	var back partRow
	bad, _ := hex.DecodeString("000000000000000a0000000000000001")
	if err := l.Decode(bad, &back); !errors.Is(err, ErrInvalidEncoding) {
		t.Errorf("partition 10 of 10: %v, want ErrInvalidEncoding", err)
	}
	for _, n := range []int{0, MaxBuckets + 1} {
		if _, err := NewLayout(JavaPartition("p", n, func(r *partRow) int64 { return r.ID }, nil)); !errors.Is(err, ErrBadConfig) {
			t.Errorf("JavaPartition with %d partitions: %v, want ErrBadConfig", n, err)
		}
	}
	for _, f := range []Field[partRow]{
		JavaPartition[partRow]("p", 10, nil, nil),
		JavaLong[partRow]("l", nil, nil),
		JavaInt[partRow]("i", nil, nil),
		JavaShort[partRow]("s", nil, nil),
	} {
		if _, err := NewLayout(f); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s with a nil getter: %v, want ErrBadConfig", f.Segment().Kind, err)
		}
	}
	// SpreadRanges refuses ids across zero after the spread partition too.
	if _, err := l.SpreadRanges(&partRow{ID: -5}, &partRow{ID: 5}, 1, 2); !errors.Is(err, ErrDiscontiguousRange) {
		t.Errorf("SpreadRanges of ids -5 .. 5: %v, want ErrDiscontiguousRange", err)
	}
	// Every partition is one spread range, in key order.
	rs, err := l.SpreadRanges(&partRow{ID: 5}, &partRow{ID: 7}, 1, 2)
	if err != nil || len(rs) != 10 {
		t.Fatalf("SpreadRanges over 10 partitions: %d ranges, %v", len(rs), err)
	}
	for p := range 10 {
		key, _ := l.Append(nil, &partRow{ID: int64(10*p + p)}) // partition p, id outside [5, 7] unless p == 0
		key2 := append(AppendJavaLong(nil, int64(p)), AppendJavaLong(nil, 6)...)
		if !rs[p].Contains(key2) || (p > 0 && rs[p].Contains(key)) {
			t.Errorf("range %d [%x, %x) and keys %x, %x", p, rs[p].Start, rs[p].Stop, key2, key)
		}
	}
}

// javaRow has one field of each Java integer type.
type javaRow struct {
	Tag   string
	Long  int64
	Int   int32
	Short int16
}

func TestJavaIntRanges(t *testing.T) {
	long := mustLayout(t,
		Literal[javaRow]("tag", "t"),
		JavaLong("long", func(r *javaRow) int64 { return r.Long }, func(r *javaRow, v int64) { r.Long = v }),
		JavaInt("int", func(r *javaRow) int32 { return r.Int }, func(r *javaRow, v int32) { r.Int = v }),
		JavaShort("short", func(r *javaRow) int16 { return r.Short }, func(r *javaRow, v int16) { r.Short = v }),
	)
	tests := []struct {
		name   string
		lo, hi javaRow
		n      int
		err    error
	}{
		{"non-negative longs", javaRow{Long: 3}, javaRow{Long: 9}, 2, nil},
		{"negative longs", javaRow{Long: -9}, javaRow{Long: -3}, 2, nil},
		{"longs across zero", javaRow{Long: -5}, javaRow{Long: 5}, 2, ErrDiscontiguousRange},
		{"longs across zero, bounds swapped", javaRow{Long: 5}, javaRow{Long: -5}, 2, ErrDiscontiguousRange},
		{"zero and minus one", javaRow{Long: -1}, javaRow{Long: 0}, 2, ErrDiscontiguousRange},
		{"equal longs, ints across zero", javaRow{Long: 7, Int: -1}, javaRow{Long: 7, Int: 1}, 3, ErrDiscontiguousRange},
		{"equal longs and ints, shorts across zero", javaRow{Short: math.MinInt16}, javaRow{Short: math.MaxInt16}, 4, ErrDiscontiguousRange},
		// The first difference decides; later fields bound the range in byte order.
		{"longs differ, ints across zero", javaRow{Long: 1, Int: -1}, javaRow{Long: 2, Int: 1}, 3, nil},
		{"longs across zero, not in the prefix", javaRow{Long: 1, Int: -1}, javaRow{Long: 1, Int: -1}, 1, nil},
		{"one negative value", javaRow{Long: -5, Short: -1}, javaRow{Long: -5, Short: -1}, 4, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, stop, err := long.Range(&tt.lo, &tt.hi, tt.n)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Range: %v, want %v", err, tt.err)
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Segment == "" || e.Segment == "layout" {
					t.Errorf("error %v does not name the field", err)
				}
				return
			}
			// Every key between the bounds' prefixes, in byte order, is in the range.
			for _, r := range []javaRow{tt.lo, tt.hi} {
				key, err := long.Append(nil, &r)
				if err != nil {
					t.Fatal(err)
				}
				if !(KeyRange{start, stop}).Contains(key) {
					t.Errorf("range [%x, %x) misses bound %x", start, stop, key)
				}
			}
		})
	}
	// Within one sign, Range holds exactly the values between the bounds.
	lo, hi := javaRow{Long: -9}, javaRow{Long: -3}
	start, stop, err := long.Range(&lo, &hi, 2)
	if err != nil {
		t.Fatal(err)
	}
	for v := int64(-12); v <= 12; v++ {
		key, _ := long.Append(nil, &javaRow{Long: v, Int: -1, Short: 5})
		if got, want := (KeyRange{start, stop}).Contains(key), v >= -9 && v <= -3; got != want {
			t.Errorf("value %d: in range %v, want %v", v, got, want)
		}
	}
	// The two pieces a caller scans instead of a range across zero.
	neg, err := long.Ranges(&javaRow{Long: -5}, &javaRow{Long: -1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := long.Ranges(&javaRow{Long: 0}, &javaRow{Long: 5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Compare(pos[0].Stop, neg[0].Start) > 0 {
		t.Errorf("the non-negative piece [%x, %x) should come before the negative one [%x, %x)", pos[0].Start, pos[0].Stop, neg[0].Start, neg[0].Stop)
	}
	for v := int64(-8); v <= 8; v++ {
		key, _ := long.Append(nil, &javaRow{Long: v})
		in := neg[0].Contains(key) || pos[0].Contains(key)
		if want := v >= -5 && v <= 5; in != want {
			t.Errorf("value %d: in the two pieces %v, want %v", v, in, want)
		}
	}
	// Split keys sorted numerically across zero are not sorted as bytes.
	if err := ValidateSplits([][]byte{AppendJavaLong(nil, -1), AppendJavaLong(nil, 0), AppendJavaLong(nil, 1)}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("ValidateSplits(-1, 0, 1 as Java longs): %v, want ErrBadConfig", err)
	}
	// Round trip through the layout.
	want := javaRow{Long: math.MinInt64, Int: -7, Short: 300}
	key, err := long.Append(nil, &want)
	if err != nil {
		t.Fatal(err)
	}
	var got javaRow
	if err := long.Decode(key, &got); err != nil || got != want {
		t.Errorf("Decode(%x) = %+v, %v; want %+v", key, got, err, want)
	}
	if w := long.Width(); w != 1+8+4+2 {
		t.Errorf("Width = %d, want 15", w)
	}
}

// TestJavaEncodingsMatchJava checks Java integers, seed 001's joined key and seed 003's
// keys and split keys against a live JVM (runJava: skipped without java or in -short
// mode) for random values.
func TestJavaEncodingsMatchJava(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	provinces := []string{"辽宁省", "吉林省", "", "a b", "Zürich", "😀"}
	var in []string
	var want [][]byte
	add := func(line string, key []byte) {
		in = append(in, line)
		want = append(want, key)
	}
	for _, tt := range javaIntVectors {
		add(tt.kind+" "+strconv.FormatInt(tt.v, 10), appendJava(nil, tt.kind, tt.v))
	}
	seed001 := joinedLayout(t)
	part := partitionLayout(t, 20)
	hash := hashLayout(t)
	for range 60 {
		v := int64(r.Uint64())
		add("long "+strconv.FormatInt(v, 10), AppendJavaLong(nil, v))
		add("int "+strconv.FormatInt(int64(int32(v)), 10), AppendJavaInt(nil, int32(v)))
		add("short "+strconv.FormatInt(int64(int16(v)), 10), AppendJavaShort(nil, int16(v)))
		u := user{Province: provinces[r.IntN(len(provinces))], Age: int64(int32(r.IntN(300) - 10))}
		key, err := seed001.Append(nil, &u)
		if err != nil {
			t.Fatal(err)
		}
		add("join "+hex.EncodeToString([]byte(u.Province))+" "+strconv.FormatInt(u.Age, 10), key)
		id := r.Int64N(1 << 40)
		pk, err := part.Append(nil, &partRow{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		add("partition "+strconv.FormatInt(id, 10)+" 20", pk)
		hk, err := hash.Append(nil, &partRow{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		add("hashkey "+strconv.FormatInt(id, 10), hk)
	}
	splits, err := partitionLayout(t, 20).Splits(20)
	if err != nil {
		t.Fatal(err)
	}
	add("splits 20", bytes.Join(splits, nil))
	got := runJava(t, "JavaKeys", javaKeysSource, in)
	for i, line := range in {
		g, err := hex.DecodeString(strings.ReplaceAll(got[i], ",", ""))
		if err != nil {
			t.Fatalf("line %d %q: %v", i, got[i], err)
		}
		if !bytes.Equal(g, want[i]) {
			t.Errorf("%s: got %x (%s), Java says %x (%s)", line, want[i], quoteBytes(want[i]), g, quoteBytes(g))
		}
	}
}

// javaKeysSource reads one request per line and prints the bytes Java writes for it
// in hex: "long V", "int V", "short V" (ByteBuffer, as Bytes.toBytes), "join HEX AGE"
// (seed 001's province + "_" + age in UTF-8, the province given as the hex of its
// UTF-8), "partition ID N" and "hashkey ID" (seed 003's keys), and "splits N" (seed
// 003's calcSplitKeys, comma-separated).
const javaKeysSource = `
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.security.MessageDigest;
public class JavaKeys {
  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x & 0xff));
    return s.toString();
  }
  static byte[] unhex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return b;
  }
  static byte[] toBytes(long v) { return ByteBuffer.allocate(8).putLong(v).array(); }
  static byte[] add(byte[] a, byte[] b) { return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array(); }
  public static void main(String[] args) throws Exception {
    for (String line : Files.readAllLines(Paths.get(args[0]))) {
      String[] f = line.split(" ", -1);
      switch (f[0]) {
        case "long": System.out.println(hex(toBytes(Long.parseLong(f[1])))); break;
        case "int": System.out.println(hex(ByteBuffer.allocate(4).putInt(Integer.parseInt(f[1])).array())); break;
        case "short": System.out.println(hex(ByteBuffer.allocate(2).putShort(Short.parseShort(f[1])).array())); break;
        case "join": {
          String province = new String(unhex(f[1]), StandardCharsets.UTF_8);
          int age = Integer.parseInt(f[2]);
          System.out.println(hex((province + "_" + age).getBytes(StandardCharsets.UTF_8)));
          break;
        }
        case "partition": {
          long currentId = Long.parseLong(f[1]);
          long partitionId = currentId % Integer.parseInt(f[2]);
          System.out.println(hex(add(toBytes(partitionId), toBytes(currentId))));
          break;
        }
        case "hashkey": {
          long currentId = Long.parseLong(f[1]);
          byte[] md5 = MessageDigest.getInstance("MD5").digest(toBytes(currentId));
          System.out.println(hex(add(hex(md5).substring(0, 8).getBytes(), toBytes(currentId))));
          break;
        }
        case "splits": {
          int partition = Integer.parseInt(f[1]);
          StringBuilder s = new StringBuilder();
          for (int i = 1; i < partition; i++) s.append(i > 1 ? "," : "").append(hex(toBytes((long) i)));
          System.out.println(s);
          break;
        }
        default: throw new IllegalArgumentException(line);
      }
    }
  }
}
`
