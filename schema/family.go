package schema

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Attribute names HBase uses for column-family options, in the
// ColumnFamilySchema attributes and in the shell.
const (
	AttrBloomFilter       = "BLOOMFILTER"
	AttrVersions          = "VERSIONS"
	AttrMinVersions       = "MIN_VERSIONS"
	AttrCompression       = "COMPRESSION"
	AttrTTL               = "TTL"
	AttrBlockSize         = "BLOCKSIZE"
	AttrInMemory          = "IN_MEMORY"
	AttrBlockCache        = "BLOCKCACHE"
	AttrDataBlockEncoding = "DATA_BLOCK_ENCODING"
)

// AttributeNames returns the family attributes this package models, in the
// order SortedAttributes uses. HBase describes more (REPLICATION_SCOPE,
// KEEP_DELETED_CELLS, …); ParseFamily ignores those. The slice is new on
// every call.
func AttributeNames() []string {
	return []string{
		AttrBloomFilter, AttrVersions, AttrMinVersions, AttrCompression, AttrTTL,
		AttrBlockSize, AttrInMemory, AttrBlockCache, AttrDataBlockEncoding,
	}
}

// Defaults HBase 2.x applies when an option is absent
// (ColumnFamilyDescriptorBuilder.DEFAULT_*). A freshly created family is
// described with these values, so Attributes fills them in for zero fields
// and a declared family compares equal to the family HBase describes back.
const (
	DefaultBloomFilter       = BloomRow
	DefaultVersions          = 1
	DefaultMinVersions       = 0
	DefaultCompression       = CompressionNone
	DefaultTTL               = Forever
	DefaultBlockSize         = 64 * 1024
	DefaultInMemory          = false
	DefaultBlockCache        = true
	DefaultDataBlockEncoding = EncodingNone
)

// Forever is HBase's "keep cells forever" TTL (HConstants.FOREVER,
// Integer.MAX_VALUE seconds). HBase stores it as "2147483647"; the shell
// prints it as FOREVER.
const Forever = time.Duration(math.MaxInt32) * time.Second

// Limits HBase enforces on family options.
const (
	MaxFamilyNameLen = 127              // a KeyValue stores the family length in one signed byte
	MinBlockSize     = 1024             // TableDescriptorChecker: 1K …
	MaxBlockSize     = 16 * 1024 * 1024 // … to 16MB
)

// BloomType is the BLOOMFILTER option (org.apache.hadoop.hbase.regionserver.BloomType).
// The empty value means "not declared": HBase's default, ROW.
type BloomType string

// Bloom filter types HBase knows.
const (
	BloomNone   BloomType = "NONE"
	BloomRow    BloomType = "ROW"
	BloomRowCol BloomType = "ROWCOL"
	// BloomRowPrefixFixedLength also needs the family configuration
	// RowPrefixBloomFilter.prefix_length, which this package does not model.
	BloomRowPrefixFixedLength BloomType = "ROWPREFIX_FIXED_LENGTH"
)

// Compression is the COMPRESSION option (Compression.Algorithm). The empty
// value means "not declared": NONE. GZ is HBase's name for gzip; "GZIP" is
// not a name HBase knows. LZO, LZMA and BROTLI need codecs that are not in
// every HBase build (LZMA and BROTLI since HBase 2.5).
type Compression string

// Compression algorithms HBase knows.
const (
	CompressionNone   Compression = "NONE"
	CompressionSnappy Compression = "SNAPPY"
	CompressionGZ     Compression = "GZ"
	CompressionLZ4    Compression = "LZ4"
	CompressionZSTD   Compression = "ZSTD"
	CompressionLZO    Compression = "LZO"
	CompressionBZIP2  Compression = "BZIP2"
	CompressionLZMA   Compression = "LZMA"
	CompressionBrotli Compression = "BROTLI"
)

// Encoding is the DATA_BLOCK_ENCODING option. The empty value means "not
// declared": NONE. PREFIX_TREE was removed in HBase 2.0 and is refused.
type Encoding string

// Data block encodings HBase 2.x knows.
const (
	EncodingNone       Encoding = "NONE"
	EncodingPrefix     Encoding = "PREFIX"
	EncodingDiff       Encoding = "DIFF"
	EncodingFastDiff   Encoding = "FAST_DIFF"
	EncodingRowIndexV1 Encoding = "ROW_INDEX_V1"
)

// Switch is a boolean option that distinguishes "not declared" (Default,
// the zero value: HBase's default applies) from an explicit On or Off.
type Switch uint8

// Switch values.
const (
	Default Switch = iota
	On
	Off
)

// resolve returns the effective value of s given HBase's default.
func (s Switch) resolve(def bool) bool {
	switch s {
	case On:
		return true
	case Off:
		return false
	}
	return def
}

// Family declares a column family and its options. A zero option means
// "not declared" and stands for HBase's default (see the Default*
// constants); Attributes spells the defaults out.
type Family struct {
	Name              string
	BloomFilter       BloomType
	Versions          int           // VERSIONS, >= 1 when set
	MinVersions       int           // MIN_VERSIONS, 0 ..= Versions
	Compression       Compression   // COMPRESSION
	TTL               time.Duration // whole seconds, 1s ..= Forever; 0 = Forever
	BlockSize         int           // BLOCKSIZE in bytes, MinBlockSize ..= MaxBlockSize
	InMemory          Switch        // IN_MEMORY, default off
	BlockCache        Switch        // BLOCKCACHE, default on
	DataBlockEncoding Encoding      // DATA_BLOCK_ENCODING
}

// Validate checks the family name and every option against what HBase
// accepts. The error is a *Error naming the family and the option attribute
// (e.g. Field "VERSIONS"), with Kind ErrInvalidName or ErrInvalidOption.
func (f Family) Validate() error {
	if err := validateFamilyName(f.Name); err != nil {
		return err
	}
	bad := func(attr, value, reason string) error {
		return &Error{Family: f.Name, Field: attr, Value: value, Reason: reason, Kind: ErrInvalidOption}
	}
	if f.BloomFilter != "" && !f.BloomFilter.known() {
		return bad(AttrBloomFilter, string(f.BloomFilter), "unknown bloom filter type (want NONE, ROW, ROWCOL or ROWPREFIX_FIXED_LENGTH)")
	}
	if f.Versions < 0 || f.Versions > math.MaxInt32 {
		return bad(AttrVersions, strconv.Itoa(f.Versions), "must be between 1 and 2147483647")
	}
	if f.MinVersions < 0 || f.MinVersions > math.MaxInt32 {
		return bad(AttrMinVersions, strconv.Itoa(f.MinVersions), "must not be negative")
	}
	if f.MinVersions > f.versions() {
		return bad(AttrMinVersions, strconv.Itoa(f.MinVersions), "must not exceed VERSIONS ("+strconv.Itoa(f.versions())+")")
	}
	if f.Compression != "" && !f.Compression.known() {
		return bad(AttrCompression, string(f.Compression), "unknown compression (want NONE, SNAPPY, GZ, LZ4, ZSTD, LZO, BZIP2, LZMA or BROTLI)")
	}
	if f.TTL < 0 || f.TTL > Forever {
		return bad(AttrTTL, f.TTL.String(), "must be between 1s and FOREVER (2147483647s)")
	}
	if f.TTL%time.Second != 0 {
		return bad(AttrTTL, f.TTL.String(), "must be a whole number of seconds")
	}
	if f.BlockSize != 0 && (f.BlockSize < MinBlockSize || f.BlockSize > MaxBlockSize) {
		return bad(AttrBlockSize, strconv.Itoa(f.BlockSize), "must be between 1024 and 16777216 bytes")
	}
	if f.InMemory > Off {
		return bad(AttrInMemory, strconv.Itoa(int(f.InMemory)), "not a Switch value")
	}
	if f.BlockCache > Off {
		return bad(AttrBlockCache, strconv.Itoa(int(f.BlockCache)), "not a Switch value")
	}
	if f.DataBlockEncoding != "" && !f.DataBlockEncoding.known() {
		return bad(AttrDataBlockEncoding, string(f.DataBlockEncoding), "unknown data block encoding (want NONE, PREFIX, DIFF, FAST_DIFF or ROW_INDEX_V1)")
	}
	return nil
}

// versions is the effective VERSIONS.
func (f Family) versions() int {
	if f.Versions == 0 {
		return DefaultVersions
	}
	return f.Versions
}

// validateFamilyName applies HBase's isLegalColumnFamilyName plus the
// 127-byte limit, restricted to printable ASCII.
func validateFamilyName(name string) error {
	bad := func(reason string) error {
		return &Error{Family: name, Field: "name", Value: name, Reason: reason, Kind: ErrInvalidName}
	}
	switch {
	case name == "":
		return &Error{Field: "family name", Reason: "must not be empty", Kind: ErrInvalidName}
	case len(name) > MaxFamilyNameLen:
		return &Error{Family: name, Field: "name", Value: strconv.Itoa(len(name)) + " bytes",
			Reason: "must be at most 127 bytes", Kind: ErrInvalidName}
	case name[0] == '.':
		return bad("must not start with '.'")
	case name == "recovered.edits":
		return bad("is reserved by HBase")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c > 0x7e {
			return bad("must be printable ASCII")
		}
		if c == ':' || c == '\\' || c == '/' {
			return bad("must not contain ':', '\\' or '/'")
		}
	}
	return nil
}

func (b BloomType) known() bool {
	switch b {
	case BloomNone, BloomRow, BloomRowCol, BloomRowPrefixFixedLength:
		return true
	}
	return false
}

func (c Compression) known() bool {
	switch c {
	case CompressionNone, CompressionSnappy, CompressionGZ, CompressionLZ4, CompressionZSTD,
		CompressionLZO, CompressionBZIP2, CompressionLZMA, CompressionBrotli:
		return true
	}
	return false
}

func (e Encoding) known() bool {
	switch e {
	case EncodingNone, EncodingPrefix, EncodingDiff, EncodingFastDiff, EncodingRowIndexV1:
		return true
	}
	return false
}

// Attributes returns every modelled option as HBase spells it in the
// ColumnFamilySchema attributes, with HBase's default filled in for each
// option not declared: BLOOMFILTER ROW, VERSIONS 1, MIN_VERSIONS 0,
// COMPRESSION NONE, TTL 2147483647, BLOCKSIZE 65536, IN_MEMORY false,
// BLOCKCACHE true, DATA_BLOCK_ENCODING NONE. These are the values HBase
// itself stores for a family created without options, so the map of a
// declared family can be compared key by key with the attributes of the
// family HBase describes (see Diff). Call Validate first; Attributes does
// not check.
func (f Family) Attributes() map[string]string {
	m := make(map[string]string, 9)
	for _, a := range f.SortedAttributes() {
		m[a.Name] = a.Value
	}
	return m
}

// Attribute is one option as an HBase attribute name and value.
type Attribute struct {
	Name, Value string
}

// SortedAttributes returns the same pairs as Attributes in the fixed order
// of AttributeNames, for output that must not depend on map order.
func (f Family) SortedAttributes() []Attribute {
	bloom := f.BloomFilter
	if bloom == "" {
		bloom = DefaultBloomFilter
	}
	comp := f.Compression
	if comp == "" {
		comp = DefaultCompression
	}
	ttl := f.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	bs := f.BlockSize
	if bs == 0 {
		bs = DefaultBlockSize
	}
	enc := f.DataBlockEncoding
	if enc == "" {
		enc = DefaultDataBlockEncoding
	}
	return []Attribute{
		{AttrBloomFilter, string(bloom)},
		{AttrVersions, strconv.Itoa(f.versions())},
		{AttrMinVersions, strconv.Itoa(f.MinVersions)},
		{AttrCompression, string(comp)},
		{AttrTTL, strconv.FormatInt(int64(ttl/time.Second), 10)},
		{AttrBlockSize, strconv.Itoa(bs)},
		{AttrInMemory, strconv.FormatBool(f.InMemory.resolve(DefaultInMemory))},
		{AttrBlockCache, strconv.FormatBool(f.BlockCache.resolve(DefaultBlockCache))},
		{AttrDataBlockEncoding, string(enc)},
	}
}

// ParseFamily builds a Family from the attributes HBase describes for it
// (ColumnFamilySchema attributes, or shell-style values). Absent options
// stay zero, i.e. "HBase's default". Values are read as HBase reads them:
// enum names case-insensitively, TTL as seconds or FOREVER, booleans as
// true/false in any case. Attributes this package does not model are
// ignored. The result is validated.
func ParseFamily(name string, attrs map[string]string) (Family, error) {
	f := Family{Name: name}
	bad := func(attr, value, reason string) (Family, error) {
		return Family{}, &Error{Family: name, Field: attr, Value: value, Reason: reason, Kind: ErrInvalidOption}
	}
	for _, attr := range AttributeNames() {
		v, ok := attrs[attr]
		if !ok {
			continue
		}
		switch attr {
		case AttrBloomFilter:
			f.BloomFilter = BloomType(strings.ToUpper(v))
		case AttrVersions, AttrMinVersions, AttrBlockSize:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return bad(attr, v, "not a 32-bit integer")
			}
			switch attr {
			case AttrVersions:
				if n < 1 {
					return bad(attr, v, "must be between 1 and 2147483647")
				}
				f.Versions = int(n)
			case AttrMinVersions:
				f.MinVersions = int(n)
			default:
				if n == 0 {
					return bad(attr, v, "must be between 1024 and 16777216 bytes")
				}
				f.BlockSize = int(n)
			}
		case AttrCompression:
			f.Compression = Compression(strings.ToUpper(v))
		case AttrTTL:
			if strings.EqualFold(v, "FOREVER") {
				f.TTL = Forever
				break
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return bad(attr, v, "not a number of seconds or FOREVER")
			}
			if n <= 0 {
				return bad(attr, v, "must be between 1s and FOREVER (2147483647s)")
			}
			f.TTL = time.Duration(n) * time.Second
		case AttrInMemory, AttrBlockCache:
			var s Switch
			switch strings.ToLower(v) {
			case "true":
				s = On
			case "false":
				s = Off
			default:
				return bad(attr, v, "not true or false")
			}
			if attr == AttrInMemory {
				f.InMemory = s
			} else {
				f.BlockCache = s
			}
		case AttrDataBlockEncoding:
			f.DataBlockEncoding = Encoding(strings.ToUpper(v))
		}
	}
	if err := f.Validate(); err != nil {
		return Family{}, err
	}
	return f, nil
}

// Drift is one option whose declared and described values differ.
type Drift struct {
	Option   string // attribute name, e.g. "VERSIONS"
	Declared string // value from the declaration, defaults spelled out
	Actual   string // value from the other family, defaults spelled out
}

// Diff compares two families option by option after filling in HBase's
// defaults, so an option left undeclared matches HBase's default value.
// It returns the differing options in AttributeNames order, or nil. Names
// are not compared.
func (f Family) Diff(actual Family) []Drift {
	want, got := f.SortedAttributes(), actual.SortedAttributes()
	var out []Drift
	for i := range want {
		if want[i].Value != got[i].Value {
			out = append(out, Drift{Option: want[i].Name, Declared: want[i].Value, Actual: got[i].Value})
		}
	}
	return out
}
