package keys

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Benchmarks for each codec and for the seed layouts. Every benchmark reuses dst, so
// allocations reported are those of the codec itself (zero for encoders).

var (
	benchDst = make([]byte, 0, 256)
	benchErr error
)

func BenchmarkAppendReversedDigits(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendReversedDigits(benchDst[:0], "13812345678", 11)
	}
}

func BenchmarkDecodeReversedDigits(b *testing.B) {
	in := []byte("87654321831")
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeReversedDigits(in, 11)
	}
}

func BenchmarkAppendDecimal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendDecimal(benchDst[:0], 20171212, 8)
	}
}

func BenchmarkAppendReversedTimestamp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendReversedTimestamp(benchDst[:0], 1503382954000)
	}
}

func BenchmarkDecodeReversedTimestamp(b *testing.B) {
	in := []byte("9223370533471821807")
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeReversedTimestamp(in)
	}
}

func BenchmarkAppendReversedTimestampBinary(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendReversedTimestampBinary(benchDst[:0], 1503382954000)
	}
}

func BenchmarkDecodeReversedTimestampBinary(b *testing.B) {
	in, _ := AppendReversedTimestampBinary(nil, 1503382954000)
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeReversedTimestampBinary(in)
	}
}

func BenchmarkAppendDate(b *testing.B) {
	at := time.Date(2017, 12, 12, 9, 30, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendDate(benchDst[:0], at)
	}
}

func BenchmarkDecodeDate(b *testing.B) {
	in := []byte("20171212")
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeDate(in)
	}
}

func BenchmarkAppendReversedTimeOfDay(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendReversedTimeOfDay(benchDst[:0], 9*time.Hour+30*time.Minute)
	}
}

func BenchmarkDecodeReversedTimeOfDay(b *testing.B) {
	in := []byte("142944749")
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeReversedTimeOfDay(in)
	}
}

func BenchmarkAppendMD5Hex(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendMD5Hex(benchDst[:0], "account-42", 16)
	}
}

func BenchmarkAppendMD5(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendMD5(benchDst[:0], "host-1.example.com", 16)
	}
}

func BenchmarkAppendBucket(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendBucket(benchDst[:0], Bucket("13812345678", 10), 10)
	}
}

func BenchmarkDecodeBucket(b *testing.B) {
	in := []byte("42")
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeBucket(in, 100)
	}
}

func BenchmarkAppendSalt(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("pcg", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchDst, benchErr = AppendSalt(benchDst[:0], r, 10)
		}
	})
	b.Run("crypto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchDst, benchErr = AppendSalt(benchDst[:0], nil, 10)
		}
	})
}

func BenchmarkAppendInt64(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst = AppendInt64(benchDst[:0], -42)
	}
}

func BenchmarkDecodeInt64(b *testing.B) {
	in := AppendInt64(nil, -42)
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeInt64(in)
	}
}

func BenchmarkAppendString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst = AppendString(benchDst[:0], "host-1.example.com\x00x")
	}
}

func BenchmarkDecodeString(b *testing.B) {
	in := AppendString(nil, "host-1.example.com")
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeString(in)
	}
}

func BenchmarkAppendFixed(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendFixed(benchDst[:0], "host-1", 16, 0)
	}
}

func BenchmarkDecodeFixed(b *testing.B) {
	in, _ := AppendFixed(nil, "host-1", 16, 0)
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeFixed(in, 16, 0)
	}
}

func BenchmarkAppendUnique(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = AppendUnique(benchDst[:0], 0xbeef, 8)
	}
}

func BenchmarkDecodeUnique(b *testing.B) {
	in := []byte("0000beef")
	b.ReportAllocs()
	for b.Loop() {
		_, _, benchErr = DecodeUnique(in, 8)
	}
}

// BenchmarkSMSKey encodes and decodes the seed SMS data key, reversed mobile (11) +
// reversed timestamp (19).
func BenchmarkSMSKey(b *testing.B) {
	l := mustLayout(b, smsFields(false)...)
	m := msg{Mobile: "13812345678", SentMs: 1503382954000}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchDst, benchErr = l.Append(benchDst[:0], &m)
		}
	})
	key, _ := l.Append(nil, &m)
	b.Run("decode", func(b *testing.B) {
		var back msg
		b.ReportAllocs()
		for b.Loop() {
			benchErr = l.Decode(key, &back)
		}
	})
	b.Run("range", func(b *testing.B) {
		lo, hi := m, m
		hi.SentMs += 86400000
		b.ReportAllocs()
		for b.Loop() {
			_, _, benchErr = l.Range(&lo, &hi, 2)
		}
	})
}

// BenchmarkIndexKey encodes the seed index key: hash(mobile) % 10 + date + md5(account)
// 16 hex + mobile + reversed time of day.
func BenchmarkIndexKey(b *testing.B) {
	l := indexLayout(b)
	m := msg{Mobile: "13812345678", SentMs: 1503382954000, Account: "acct-42"}
	b.ReportAllocs()
	for b.Loop() {
		benchDst, benchErr = l.Append(benchDst[:0], &m)
	}
}

func BenchmarkSplits(b *testing.B) {
	b.Run("hex-20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, benchErr = HexStringSplit(20)
		}
	})
	b.Run("uniform-20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, benchErr = UniformSplit(20)
		}
	})
	b.Run("prefix-20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, benchErr = DecimalPrefixSplits(20, 2)
		}
	})
}
