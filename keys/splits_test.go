package keys

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func strs(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

func hexes(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = hexString(b)
	}
	return out
}

func checkSplits(t *testing.T, name string, got [][]byte, err error, want []string, show func([][]byte) []string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if g := strings.Join(show(got), ","); g != strings.Join(want, ",") {
		t.Errorf("%s:\n got %s\nwant %s", name, g, strings.Join(want, ","))
	}
	if err := ValidateSplits(got); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

func TestHBaseSplitAlgorithms(t *testing.T) {
	tests := []struct {
		name string
		fn   func(int) ([][]byte, error)
		n    int
		want []string
		show func([][]byte) []string
	}{
		{"hex 1", HexStringSplit, 1, nil, strs},
		{"hex 2", HexStringSplit, 2, []string{"80000000"}, strs},
		{"hex 3", HexStringSplit, 3, []string{"55555555", "aaaaaaaa"}, strs},
		{"hex 4", HexStringSplit, 4, []string{"40000000", "80000000", "c0000000"}, strs},
		{"hex 16", HexStringSplit, 16, []string{
			"10000000", "20000000", "30000000", "40000000", "50000000", "60000000", "70000000", "80000000",
			"90000000", "a0000000", "b0000000", "c0000000", "d0000000", "e0000000", "f0000000"}, strs},
		{"hex 1000 pads", HexStringSplit, 1000, nil, strs}, // checked below
		{"decimal 2", DecimalStringSplit, 2, []string{"50000000"}, strs},
		{"decimal 3", DecimalStringSplit, 3, []string{"33333333", "66666666"}, strs},
		{"decimal 10", DecimalStringSplit, 10, []string{
			"10000000", "20000000", "30000000", "40000000", "50000000", "60000000", "70000000", "80000000", "90000000"}, strs},
		{"uniform 1", UniformSplit, 1, nil, hexes},
		{"uniform 2", UniformSplit, 2, []string{"8000000000000000"}, hexes},
		{"uniform 3", UniformSplit, 3, []string{"5555555555555555", "aaaaaaaaaaaaaaaa"}, hexes},
		{"uniform 4", UniformSplit, 4, []string{"4000000000000000", "8000000000000000", "c000000000000000"}, hexes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn(tt.n)
			if len(got) != tt.n-1 {
				t.Fatalf("got %d splits, want %d", len(got), tt.n-1)
			}
			if tt.want == nil && tt.n > 1 {
				if err != nil {
					t.Fatal(err)
				}
				if err := ValidateSplits(got); err != nil {
					t.Error(err)
				}
				// floor(2^32/1000) = 4294967 = 0x418937
				if first := string(got[0]); first != "00418937" {
					t.Errorf("first split: got %s, want 00418937", first)
				}
				return
			}
			checkSplits(t, tt.name, got, err, tt.want, tt.show)
		})
	}
}

func TestUniformSplitRange(t *testing.T) {
	// "a".."b" holds only two 1-byte values, so HBase's Bytes.split extends both
	// bounds by a zero byte: 0x6100..0x6200, 257 values, parts of 85.
	got, err := UniformSplitRange(3, []byte("a"), []byte("b"))
	checkSplits(t, "a..b", got, err, []string{"6155", "61aa"}, hexes)
	// Unequal lengths: the shorter bound is right-padded with zeros.
	got, err = UniformSplitRange(2, []byte{0x10}, []byte{0x20, 0x00})
	checkSplits(t, "pad", got, err, []string{"1800"}, hexes)
	if _, err := UniformSplitRange(2, []byte("b"), []byte("a")); !errors.Is(err, ErrBadConfig) {
		t.Errorf("reversed bounds: got %v, want ErrBadConfig", err)
	}
	if _, err := UniformSplit(0); !errors.Is(err, ErrBadConfig) {
		t.Errorf("n=0: got %v, want ErrBadConfig", err)
	}
}

func TestNumberStringSplit(t *testing.T) {
	got, err := NumberStringSplit(4, "0", "ff", 16)
	checkSplits(t, "0..ff", got, err, []string{"40", "80", "c0"}, strs)
	got, err = NumberStringSplit(2, "1000", "2FFF", 16)
	checkSplits(t, "1000..2FFF", got, err, []string{"2000"}, strs)
	for _, tt := range []struct {
		name               string
		n                  int
		first, last        string
		radix              int
		wantErrSubstrInMsg string
	}{
		{"too many regions", 5, "0", "3", 10, "more regions"},
		{"last below first", 2, "9", "1", 10, "not above"},
		{"not a number", 2, "0", "zz", 10, "non-negative numbers"},
		{"radix 1", 2, "0", "1", 1, "radix"},
		{"no regions", 0, "0", "9", 10, "at least 1"},
	} {
		_, err := NumberStringSplit(tt.n, tt.first, tt.last, tt.radix)
		if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), tt.wantErrSubstrInMsg) {
			t.Errorf("%s: got %v, want ErrBadConfig mentioning %q", tt.name, err, tt.wantErrSubstrInMsg)
		}
	}
	if _, err := HexStringSplit(1 << 33); !errors.Is(err, ErrBadConfig) {
		t.Errorf("2^33 hex regions: got %v, want ErrBadConfig", err)
	}
}

func TestBucketAndPrefixSplits(t *testing.T) {
	got, err := DecimalPrefixSplits(20, 2)
	checkSplits(t, "seed sms 20 regions", got, err, []string{
		"05", "10", "15", "20", "25", "30", "35", "40", "45", "50",
		"55", "60", "65", "70", "75", "80", "85", "90", "95"}, strs)
	got, err = DecimalPrefixSplits(10, 1)
	checkSplits(t, "seed index 10 regions", got, err, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, strs)
	got, err = BucketSplits(10, 10, 1)
	checkSplits(t, "10 buckets", got, err, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, strs)
	got, err = BucketSplits(10, 3, 1)
	checkSplits(t, "10 buckets 3 regions", got, err, []string{"3", "6"}, strs)
	got, err = BucketSplits(16, 4, 2)
	checkSplits(t, "16 buckets 4 regions", got, err, []string{"04", "08", "12"}, strs)
	got, err = DecimalPrefixSplits(1, 2)
	checkSplits(t, "1 region", got, err, nil, strs)
	for _, tt := range []struct {
		name string
		fn   func() ([][]byte, error)
	}{
		{"more regions than buckets", func() ([][]byte, error) { return BucketSplits(10, 11, 1) }},
		{"width too small", func() ([][]byte, error) { return BucketSplits(100, 10, 1) }},
		{"zero regions", func() ([][]byte, error) { return BucketSplits(10, 0, 1) }},
		{"prefix width 0", func() ([][]byte, error) { return DecimalPrefixSplits(2, 0) }},
		{"prefix too many regions", func() ([][]byte, error) { return DecimalPrefixSplits(11, 1) }},
	} {
		if _, err := tt.fn(); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: got %v, want ErrBadConfig", tt.name, err)
		}
	}
}

func TestSampleSplits(t *testing.T) {
	r := newRand(t)
	// Seed 003: keys made of 8 md5 hex digits and an id, sampled and cut in equal parts.
	var samples [][]byte
	for i := range 10000 {
		k, _ := AppendMD5Hex(nil, itoa(i), 8)
		samples = append(samples, AppendUint64(k, uint64(i)))
	}
	samples = append(samples, samples[0], nil, []byte{}) // a duplicate and empty keys
	r.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	orig := make([][]byte, len(samples))
	copy(orig, samples)
	splits, err := SampleSplits(samples, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 7 {
		t.Fatalf("got %d splits, want 7", len(splits))
	}
	if err := ValidateSplits(splits); err != nil {
		t.Fatal(err)
	}
	// Each region gets 10000/8 = 1250 of the distinct samples.
	counts := make([]int, 8)
	seen := map[string]bool{}
	for _, s := range samples {
		if len(s) == 0 || seen[string(s)] {
			continue
		}
		seen[string(s)] = true
		i := 0
		for i < len(splits) && bytes.Compare(s, splits[i]) >= 0 {
			i++
		}
		counts[i]++
	}
	for i, c := range counts {
		if c != 1250 {
			t.Errorf("region %d holds %d samples, want 1250", i, c)
		}
	}
	for i := range samples {
		if !bytes.Equal(samples[i], orig[i]) {
			t.Fatal("SampleSplits modified its input")
		}
	}
	splits[0][0] = 'X'
	for _, s := range samples {
		if len(s) > 0 && s[0] == 'X' {
			t.Fatal("split aliases a sample")
		}
	}
	if _, err := SampleSplits(samples[:3], 8); !errors.Is(err, ErrBadConfig) {
		t.Errorf("too few samples: got %v, want ErrBadConfig", err)
	}
	got, err := SampleSplits([][]byte{[]byte("c"), []byte("a"), []byte("b"), []byte("d")}, 4)
	checkSplits(t, "4 of 4", got, err, []string{"b", "c", "d"}, strs)
}

func TestLayoutSplits(t *testing.T) {
	type rec struct{ S string }
	get := func(r *rec) string { return r.S }
	tests := []struct {
		name  string
		field Field[rec]
		n     int
		want  []string
		show  func([][]byte) []string
	}{
		{"reversed mobile 20", ReversedDigits("m", 11, get, nil), 20, []string{
			"05", "10", "15", "20", "25", "30", "35", "40", "45", "50",
			"55", "60", "65", "70", "75", "80", "85", "90", "95"}, strs},
		{"reversed mobile 10", ReversedDigits("m", 11, get, nil), 10, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, strs},
		{"reversed mobile 3 like DecimalStringSplit", ReversedDigits("m", 11, get, nil), 3, []string{"33333333", "66666666"}, strs},
		{"reversed 2 digits 3 regions", ReversedDigits("m", 2, get, nil), 3, []string{"33", "66"}, strs},
		{"hash bucket 10", HashBucket("x", 10, get, nil), 10, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, strs},
		{"hash bucket 10 in 5", HashBucket("x", 10, get, nil), 5, []string{"2", "4", "6", "8"}, strs},
		{"salt 100 in 4", Salt[rec]("s", 100, nil, nil), 4, []string{"25", "50", "75"}, strs},
		{"md5 hex 16", MD5Hex("h", 16, get), 16, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"}, strs},
		{"md5 hex 3 like HexStringSplit", MD5Hex("h", 32, get), 3, []string{"55555555", "aaaaaaaa"}, strs},
		{"md5 raw 4", MD5("h", 16, get), 4, []string{"40", "80", "c0"}, hexes},
		{"md5 raw 3", MD5("h", 16, get), 3, []string{"55555555555555", "aaaaaaaaaaaaaa"}, hexes},
		{"bucket byte 8 in 4", HashBucketByte("b", 8, get, nil), 4, []string{"02", "04", "06"}, hexes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLayout(t, tt.field)
			got, err := l.Splits(tt.n)
			checkSplits(t, tt.name, got, err, tt.want, tt.show)
		})
	}
	for _, f := range []Field[rec]{
		ReversedTimestamp("t", func(*rec) int64 { return 0 }, nil),
		String("s", get, nil),
		Literal[rec]("l", "x"),
		Unique("u", 4, func(*rec) uint64 { return 0 }, nil),
	} {
		l := mustLayout(t, f)
		if _, err := l.Splits(4); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: got %v, want ErrBadConfig (use SampleSplits)", f.Segment().Kind, err)
		}
	}
	l := mustLayout(t, ReversedDigits("m", 1, get, nil))
	if _, err := l.Splits(11); !errors.Is(err, ErrBadConfig) {
		t.Errorf("11 regions over 1 digit: got %v, want ErrBadConfig", err)
	}
}

// TestSplitsProperties checks, for random region counts, that every calculator gives
// n-1 strictly increasing split keys.
func TestSplitsProperties(t *testing.T) {
	r := newRand(t)
	for range 200 {
		n := 1 + r.IntN(300)
		for name, fn := range map[string]func(int) ([][]byte, error){
			"hex": HexStringSplit, "decimal": DecimalStringSplit, "uniform": UniformSplit,
			"prefix3": func(n int) ([][]byte, error) { return DecimalPrefixSplits(n, 3) },
		} {
			got, err := fn(n)
			if err != nil {
				t.Fatalf("%s(%d): %v", name, n, err)
			}
			if len(got) != n-1 {
				t.Fatalf("%s(%d): got %d splits", name, n, len(got))
			}
			if err := ValidateSplits(got); err != nil {
				t.Fatalf("%s(%d): %v", name, n, err)
			}
		}
	}
}

func TestValidateSplits(t *testing.T) {
	for _, tt := range []struct {
		name   string
		splits [][]byte
		ok     bool
	}{
		{"none", nil, true},
		{"increasing", [][]byte{[]byte("1"), []byte("2")}, true},
		{"empty key", [][]byte{{}}, false},
		{"equal", [][]byte{[]byte("1"), []byte("1")}, false},
		{"decreasing", [][]byte{[]byte("2"), []byte("1")}, false},
	} {
		err := ValidateSplits(tt.splits)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrBadConfig)) {
			t.Errorf("%s: got %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestShellSplits(t *testing.T) {
	got := ShellSplits([][]byte{[]byte("05"), []byte("10"), {0x80, 0x00, 'a'}, []byte(`it's`)})
	want := `['05', '10', "\x80\x00a", "it's"]`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
