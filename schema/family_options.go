package schema

import (
	"strconv"
	"time"
)

// FamilyOption sets one option in NewFamily. Unlike a zero field in a
// Family literal, which means "HBase's default", an option is always an
// explicit value, so WithVersions(0) is an error rather than the default.
type FamilyOption func(*Family) error

// NewFamily returns the validated family name with the given options.
func NewFamily(name string, opts ...FamilyOption) (Family, error) {
	f := Family{Name: name}
	for _, o := range opts {
		if err := o(&f); err != nil {
			if se, ok := err.(*Error); ok {
				se.Family = name
			}
			return Family{}, err
		}
	}
	if err := f.Validate(); err != nil {
		return Family{}, err
	}
	return f, nil
}

func optionError(attr, value, reason string) error {
	return &Error{Field: attr, Value: value, Reason: reason, Kind: ErrInvalidOption}
}

// WithBloomFilter sets BLOOMFILTER.
func WithBloomFilter(b BloomType) FamilyOption {
	return func(f *Family) error {
		if !b.known() {
			return optionError(AttrBloomFilter, string(b), "unknown bloom filter type (want NONE, ROW, ROWCOL or ROWPREFIX_FIXED_LENGTH)")
		}
		f.BloomFilter = b
		return nil
	}
}

// WithVersions sets VERSIONS, the maximum number of versions kept; n >= 1.
func WithVersions(n int) FamilyOption {
	return func(f *Family) error {
		if n < 1 {
			return optionError(AttrVersions, strconv.Itoa(n), "must be between 1 and 2147483647")
		}
		f.Versions = n
		return nil
	}
}

// WithMinVersions sets MIN_VERSIONS; 0 <= n <= VERSIONS.
func WithMinVersions(n int) FamilyOption {
	return func(f *Family) error {
		if n < 0 {
			return optionError(AttrMinVersions, strconv.Itoa(n), "must not be negative")
		}
		f.MinVersions = n
		return nil
	}
}

// WithCompression sets COMPRESSION.
func WithCompression(c Compression) FamilyOption {
	return func(f *Family) error {
		if !c.known() {
			return optionError(AttrCompression, string(c), "unknown compression (want NONE, SNAPPY, GZ, LZ4, ZSTD, LZO, BZIP2, LZMA or BROTLI)")
		}
		f.Compression = c
		return nil
	}
}

// WithTTL sets TTL, in whole seconds up to Forever.
func WithTTL(d time.Duration) FamilyOption {
	return func(f *Family) error {
		if d <= 0 {
			return optionError(AttrTTL, d.String(), "must be between 1s and FOREVER (2147483647s)")
		}
		f.TTL = d
		return nil
	}
}

// WithBlockSize sets BLOCKSIZE in bytes.
func WithBlockSize(n int) FamilyOption {
	return func(f *Family) error {
		if n < MinBlockSize || n > MaxBlockSize {
			return optionError(AttrBlockSize, strconv.Itoa(n), "must be between 1024 and 16777216 bytes")
		}
		f.BlockSize = n
		return nil
	}
}

// WithInMemory sets IN_MEMORY.
func WithInMemory(on bool) FamilyOption {
	return func(f *Family) error { f.InMemory = switchOf(on); return nil }
}

// WithBlockCache sets BLOCKCACHE.
func WithBlockCache(on bool) FamilyOption {
	return func(f *Family) error { f.BlockCache = switchOf(on); return nil }
}

// WithDataBlockEncoding sets DATA_BLOCK_ENCODING.
func WithDataBlockEncoding(e Encoding) FamilyOption {
	return func(f *Family) error {
		if !e.known() {
			return optionError(AttrDataBlockEncoding, string(e), "unknown data block encoding (want NONE, PREFIX, DIFF, FAST_DIFF or ROW_INDEX_V1)")
		}
		f.DataBlockEncoding = e
		return nil
	}
}

func switchOf(on bool) Switch {
	if on {
		return On
	}
	return Off
}
