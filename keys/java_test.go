package keys

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// javaVectors were printed by Java 17 (String.hashCode, then the bucket among 10 by
// (h & Integer.MAX_VALUE) % 10, Math.abs(h) % 10 and Math.floorMod(h, 10));
// TestJavaHashCodeMatchesJava checks random strings against a live JVM too.
var javaVectors = []struct {
	s                     string
	hash                  int32
	mask, abs, floorMod10 int
}{
	{"", 0, 0, 0, 0},
	{"a", 97, 7, 7, 7},
	{"hbase", 99062585, 5, 5, 5},
	{"13812345678", 711854298, 8, 8, 8},
	{"acct-42", -1177240968, 0, 8, 2},
	{"短信", 972180, 0, 0, 0},
	{"user😀x", -92267574, 4, 4, 6},
	{"été", 227742, 2, 2, 2},
	{"Aa", 2112, 2, 2, 2},
	{"BB", 2112, 2, 2, 2},
}

func TestJavaHashCode(t *testing.T) {
	for _, tt := range javaVectors {
		t.Run(tt.s, func(t *testing.T) {
			h, err := JavaHashCode(tt.s)
			if err != nil {
				t.Fatalf("JavaHashCode(%q): %v", tt.s, err)
			}
			if h != tt.hash {
				t.Errorf("JavaHashCode(%q) = %d, want %d", tt.s, h, tt.hash)
			}
			for _, c := range []struct {
				rule JavaBucketRule
				want int
			}{{JavaMask, tt.mask}, {JavaAbs, tt.abs}, {JavaFloorMod, tt.floorMod10}} {
				got, err := JavaBucket(tt.s, 10, c.rule)
				if err != nil {
					t.Fatalf("JavaBucket(%q, 10, %v): %v", tt.s, c.rule, err)
				}
				if got != c.want {
					t.Errorf("JavaBucket(%q, 10, %v) = %d, want %d", tt.s, c.rule, got, c.want)
				}
			}
		})
	}
}

func TestJavaBucketMinValue(t *testing.T) {
	// "polygenelubricants".hashCode() is Integer.MIN_VALUE.
	const s = "polygenelubricants"
	if h, err := JavaHashCode(s); err != nil || h != -1<<31 {
		t.Fatalf("JavaHashCode(%q) = %d, %v; want -2147483648", s, h, err)
	}
	tests := []struct {
		name string
		n    int
		rule JavaBucketRule
		want int
		err  error
	}{
		{"mask", 10, JavaMask, 0, nil},
		{"floormod", 10, JavaFloorMod, 2, nil},
		// Java: Math.abs(MIN_VALUE) % 10 == -8, a bucket no key holds.
		{"abs, 10 buckets", 10, JavaAbs, 0, ErrInvalidValue},
		// 16 divides 2^31: Java's bucket is 0.
		{"abs, 16 buckets", 16, JavaAbs, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JavaBucket(s, tt.n, tt.rule)
			if !errors.Is(err, tt.err) {
				t.Fatalf("JavaBucket(%q, %d, %v) error %v, want %v", s, tt.n, tt.rule, err, tt.err)
			}
			if err == nil && got != tt.want {
				t.Errorf("JavaBucket(%q, %d, %v) = %d, want %d", s, tt.n, tt.rule, got, tt.want)
			}
		})
	}
}

func TestJavaBucketBadInput(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		rule JavaBucketRule
		want error
	}{
		{"invalid UTF-8", "x\xff", 10, JavaMask, ErrInvalidValue},
		{"truncated sequence", "\xe4\xb8", 10, JavaMask, ErrInvalidValue},
		{"zero buckets", "a", 0, JavaMask, ErrBadConfig},
		{"2^31 buckets, more than a Java int", "a", MaxJavaBuckets + 1, JavaMask, ErrBadConfig},
		{"no rule", "a", 10, 0, ErrBadConfig},
		{"unknown rule", "a", 10, 9, ErrBadConfig},
		{"unknown rule and invalid UTF-8", "x\xff", 10, 9, ErrBadConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := JavaBucket(tt.s, tt.n, tt.rule)
			var e *Error
			if !errors.Is(err, tt.want) || !errors.As(err, &e) {
				t.Fatalf("JavaBucket(%q, %d, %v) = %v, want an *Error wrapping %v", tt.s, tt.n, tt.rule, err, tt.want)
			}
		})
	}
	// U+FFFD written out is valid UTF-8, and Java hashes it as 0xFFFD.
	if h, err := JavaHashCode("\uFFFD"); err != nil || h != 0xFFFD {
		t.Errorf("JavaHashCode(U+FFFD) = %d, %v; want 65533", h, err)
	}
	// The largest Java int is a valid count: Math.floorMod(97, 2147483647) == 97.
	if b, err := JavaBucket("a", MaxJavaBuckets, JavaFloorMod); err != nil || b != 97 {
		t.Errorf("JavaBucket(\"a\", 2^31-1, floormod) = %d, %v; want 97", b, err)
	}
}

func TestParseJavaBucketRule(t *testing.T) {
	for _, r := range []JavaBucketRule{JavaMask, JavaAbs, JavaFloorMod} {
		got, err := ParseJavaBucketRule(r.String())
		if err != nil || got != r {
			t.Errorf("ParseJavaBucketRule(%q) = %v, %v; want %v", r.String(), got, err, r)
		}
	}
	if _, err := ParseJavaBucketRule("Abs"); !errors.Is(err, ErrBadConfig) {
		t.Errorf("ParseJavaBucketRule(\"Abs\") error %v, want ErrBadConfig", err)
	}
}

func TestJavaHashBucketField(t *testing.T) {
	type rec struct {
		user   string
		bucket int
		id     uint64
	}
	l, err := NewLayout(
		JavaHashBucket("bucket", 16, JavaFloorMod, func(r *rec) string { return r.user }, func(r *rec, b int) { r.bucket = b }),
		Decimal("id", 6, func(r *rec) uint64 { return r.id }, func(r *rec, v uint64) { r.id = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	key, err := l.Append(nil, &rec{user: "acct-42", id: 7})
	if err != nil {
		t.Fatal(err)
	}
	// Math.floorMod(-1177240968, 16) == 8.
	if want := "08000007"; string(key) != want {
		t.Errorf("key %q, want %q", key, want)
	}
	var got rec
	if err := l.Decode(key, &got); err != nil {
		t.Fatal(err)
	}
	if got.bucket != 8 || got.id != 7 {
		t.Errorf("decoded %+v, want bucket 8 and id 7", got)
	}
	_, err = l.Append(nil, &rec{user: "x\xff"})
	var e *Error
	if !errors.As(err, &e) || e.Segment != "bucket" || !errors.Is(err, ErrInvalidValue) {
		t.Errorf("Append of invalid UTF-8: %v, want an *Error for segment bucket wrapping ErrInvalidValue", err)
	}
	for _, bad := range []Field[rec]{
		JavaHashBucket("b", 0, JavaMask, func(r *rec) string { return r.user }, nil),
		JavaHashBucket[rec]("b", 10, JavaMask, nil, nil),
		JavaHashBucket("b", 10, 0, func(r *rec) string { return r.user }, nil),
	} {
		if _, err := NewLayout(bad); !errors.Is(err, ErrBadConfig) {
			t.Errorf("NewLayout with a bad JavaHashBucket: %v, want ErrBadConfig", err)
		}
	}
}

func TestJavaBucketAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := JavaBucket("user😀x", 10, JavaAbs); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("JavaBucket allocates %v times, want 0", allocs)
	}
}

// runJava runs the single-file Java program source (its public class named class)
// with one argument, a file holding lines, and returns the lines it prints, one per
// input line. It needs java on PATH (Java 11+ runs a source file directly), which the
// local HBase needs too; it skips without it, and in -short mode.
func runJava(t *testing.T, class, source string, lines []string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(input, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, class+".java")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(java, src, input).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", java, src, err, out)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != len(lines) {
		t.Fatalf("java printed %d lines for %d inputs:\n%s", len(got), len(lines), out)
	}
	return got
}

// TestJavaHashCodeMatchesJava runs random strings (ASCII, CJK, characters outside
// the Basic Multilingual Plane) through a JVM and compares the hash code and the
// three buckets (runJava: skipped without java or in -short mode).
func TestJavaHashCodeMatchesJava(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("az09-_ AZ短信é€😀𝄞\u0000\uFFFD")
	var in []string
	for range 200 {
		n := r.IntN(24)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		in = append(in, b.String())
	}
	in = append(in, "polygenelubricants")
	quoted := make([]string, len(in))
	for i, s := range in {
		quoted[i] = strconv.QuoteToASCII(s)
	}
	got := runJava(t, "Hash", javaHashSource, quoted)
	for i, s := range in {
		var h int32
		var mask, abs, floorMod int
		if _, err := fmt.Sscanf(got[i], "%d %d %d %d", &h, &mask, &abs, &floorMod); err != nil {
			t.Fatalf("line %d %q: %v", i, got[i], err)
		}
		if gh, err := JavaHashCode(s); err != nil || gh != h {
			t.Errorf("JavaHashCode(%q) = %d, %v; Java says %d", s, gh, err, h)
		}
		for _, c := range []struct {
			rule JavaBucketRule
			java int
		}{{JavaMask, mask}, {JavaAbs, abs}, {JavaFloorMod, floorMod}} {
			b, err := JavaBucket(s, 7, c.rule)
			if c.java < 0 {
				if !errors.Is(err, ErrInvalidValue) {
					t.Errorf("JavaBucket(%q, 7, %v) = %d, %v; Java's bucket is %d, want ErrInvalidValue", s, c.rule, b, err, c.java)
				}
				continue
			}
			if err != nil || b != c.java {
				t.Errorf("JavaBucket(%q, 7, %v) = %d, %v; Java says %d", s, c.rule, b, err, c.java)
			}
		}
	}
}

// javaHashSource reads one Go-quoted ASCII string per line (\uXXXX escapes, and
// \U00XXXXXX for characters outside the BMP, which it turns into surrogate pairs) and
// prints hashCode and the buckets among 7 by the three rules.
const javaHashSource = `
import java.nio.file.*;
public class Hash {
  static String unquote(String q) {
    StringBuilder b = new StringBuilder();
    for (int i = 1; i < q.length() - 1; i++) {
      char c = q.charAt(i);
      if (c != '\\') { b.append(c); continue; }
      char e = q.charAt(++i);
      switch (e) {
        case 'u': b.append((char) Integer.parseInt(q.substring(i + 1, i + 5), 16)); i += 4; break;
        case 'U': b.appendCodePoint(Integer.parseInt(q.substring(i + 1, i + 9), 16)); i += 8; break;
        case 'x': b.append((char) Integer.parseInt(q.substring(i + 1, i + 3), 16)); i += 2; break;
        case 'a': b.append((char) 7); break;
        case 'b': b.append('\b'); break;
        case 'f': b.append('\f'); break;
        case 'n': b.append('\n'); break;
        case 'r': b.append('\r'); break;
        case 't': b.append('\t'); break;
        case 'v': b.append((char) 11); break;
        default: b.append(e);
      }
    }
    return b.toString();
  }
  public static void main(String[] args) throws Exception {
    for (String line : Files.readAllLines(Paths.get(args[0]))) {
      int h = unquote(line).hashCode();
      System.out.println(h + " " + ((h & Integer.MAX_VALUE) % 7) + " " + (Math.abs(h) % 7) + " " + Math.floorMod(h, 7));
    }
  }
}
`
