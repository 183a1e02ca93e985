package keys

import (
	"unicode/utf8"
)

// Java-compatible hash buckets, for tables whose keys Java code already writes.
//
// Java applications often salt or bucket row keys with String.hashCode and one of three
// formulas. Go code that reads or writes such a table must compute the same bucket for
// the same text, or its Gets and scans miss every row. JavaHashCode and JavaBucket do
// that; for new tables prefer HashBucket, whose hash is defined on bytes.

const segJavaBucket = "java hash bucket"

// JavaBucketRule says how Java code turned String.hashCode into a bucket among n. The
// three differ for negative hash codes, which are half of them, so match the Java code
// exactly.
type JavaBucketRule uint8

const (
	// JavaMask is (s.hashCode() & Integer.MAX_VALUE) % n, as in java.util.Hashtable.
	JavaMask JavaBucketRule = iota + 1
	// JavaAbs is Math.abs(s.hashCode()) % n. For the strings whose hash code is
	// Integer.MIN_VALUE (such as "polygenelubricants"), Math.abs stays negative and Java
	// computes a negative bucket unless n divides 2^31; JavaBucket rejects those strings
	// with ErrInvalidValue rather than invent a bucket the Java code never wrote.
	JavaAbs
	// JavaFloorMod is Math.floorMod(s.hashCode(), n).
	JavaFloorMod
)

var javaRuleNames = [...]string{JavaMask: "mask", JavaAbs: "abs", JavaFloorMod: "floormod"}

// String returns "mask", "abs" or "floormod".
func (r JavaBucketRule) String() string {
	if int(r) < len(javaRuleNames) && javaRuleNames[r] != "" {
		return javaRuleNames[r]
	}
	return "rule(" + itoa(int(r)) + ")"
}

// ParseJavaBucketRule returns the rule named "mask", "abs" or "floormod".
func ParseJavaBucketRule(name string) (JavaBucketRule, error) {
	for r, n := range javaRuleNames {
		if n != "" && n == name {
			return JavaBucketRule(r), nil
		}
	}
	return 0, newError(segJavaBucket, name, "unknown rule: want mask, abs or floormod", ErrBadConfig)
}

// JavaHashCode returns Java's String.hashCode of the text s holds: the sum of
// c[i]*31^(len-1-i) over its UTF-16 code units, in 32-bit two's complement arithmetic.
// Characters outside the Basic Multilingual Plane count as their two surrogates, as in
// Java. s must be valid UTF-8; for invalid UTF-8 it returns an *Error wrapping
// ErrInvalidValue, because Java's decoders replace malformed bytes in ways that depend
// on the decoder.
func JavaHashCode(s string) (int32, error) {
	var h int32
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return 0, newError(segJavaBucket, s, "invalid UTF-8 at byte "+itoa(i), ErrInvalidValue)
			}
		}
		if r < 0x10000 {
			h = 31*h + int32(r)
			continue
		}
		r -= 0x10000
		h = 31*h + int32(0xD800+(r>>10))
		h = 31*h + int32(0xDC00+(r&0x3FF))
	}
	return h, nil
}

// MaxJavaBuckets is the largest bucket count of JavaBucket: n is a Java int.
const MaxJavaBuckets = 1<<31 - 1

// JavaBucket returns the bucket of s among n, 1 <= n <= MaxJavaBuckets, as the Java
// expression of rule computes it from s.hashCode(). Errors are *Error values wrapping
// ErrBadConfig (n or rule invalid) or ErrInvalidValue (s is not valid UTF-8, or Java
// would have computed a negative bucket; see JavaAbs).
func JavaBucket(s string, n int, rule JavaBucketRule) (int, error) {
	if err := checkJavaBucket(n, rule); err != nil {
		return 0, err
	}
	return javaBucket(s, n, rule)
}

// javaBucket is JavaBucket for a count and rule already checked.
func javaBucket(s string, n int, rule JavaBucketRule) (int, error) {
	h, err := JavaHashCode(s)
	if err != nil {
		return 0, err
	}
	m := int64(n)
	switch rule {
	case JavaMask:
		return int(int64(h&0x7fffffff) % m), nil
	case JavaAbs:
		// Go's % truncates toward zero, as Java's does.
		b := int64(javaAbs(h)) % m
		if b < 0 {
			return 0, newError(segJavaBucket, s, "Math.abs(hashCode) is Integer.MIN_VALUE, so Java's bucket is "+
				itoa(int(b))+", which no key holds", ErrInvalidValue)
		}
		return int(b), nil
	default: // JavaFloorMod
		b := int64(h) % m
		if b < 0 {
			b += m
		}
		return int(b), nil
	}
}

// checkJavaBucket validates the bucket count and the rule of a Java bucket.
func checkJavaBucket(n int, rule JavaBucketRule) *Error {
	if n < 1 || int64(n) > MaxJavaBuckets {
		return configError(segJavaBucket, "bucket count must be in [1, 2^31-1]")
	}
	if rule < JavaMask || rule > JavaFloorMod {
		return configError(segJavaBucket, "unknown rule "+rule.String())
	}
	return nil
}

// javaAbs is Java's Math.abs(int): Integer.MIN_VALUE stays negative.
func javaAbs(h int32) int32 {
	if h < 0 {
		return -h // -MinInt32 overflows back to MinInt32, as in Java
	}
	return h
}

// JavaHashBucket is JavaBucket(get(rec), n, rule), 1 <= n <= MaxJavaBuckets, written
// like HashBucket: BucketWidth(n) zero-padded decimal digits. Use it to read and write a
// table whose keys Java code bucketed with String.hashCode; the Java code must pad the
// bucket the same way (String.format("%0" + width + "d", bucket)). Encoding fails with
// the errors of JavaBucket. set, if not nil, receives the decoded bucket. Changing n or
// the rule is a data migration.
func JavaHashBucket[T any](name string, n int, rule JavaBucketRule, get func(*T) string, set func(*T, int)) Field[T] {
	if err := checkJavaBucket(n, rule); err != nil {
		return badField[T](name, KindBucket, err.Reason)
	}
	if get == nil {
		return badField[T](name, KindBucket, "nil getter")
	}
	f := bucketField(name, n, func(rec *T) (int, error) { return javaBucket(get(rec), n, rule) }, set)
	f.seg.Rule = rule
	return f
}
