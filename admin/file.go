package admin

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// MaxSchemaFileSize bounds the size of a schema file.
const MaxSchemaFileSize = 1 << 20

// LoadSchemaFile reads a schema file; see ParseSchemaFile.
func LoadSchemaFile(path string) ([]schema.Definition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("admin: schema file: %w", err)
	}
	defer f.Close()
	defs, err := ParseSchemaFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return defs, nil
}

// File is the JSON form of a schema file: one or more tables, for example
// a data table and its index tables. See the package documentation for
// an example.
type File struct {
	Tables []FileTable `json:"tables"`
}

// FileTable declares one table.
type FileTable struct {
	// Name is "table" or "namespace:table".
	Name     string       `json:"name"`
	Families []FileFamily `json:"families"`
	// Key is the row-key layout, segment by segment. It decides what
	// "regions" alone splits on (the leading segment's keyspace) and how
	// describe cuts keys. Empty means one variable-length string segment
	// named "row".
	Key    []FileSegment `json:"key,omitempty"`
	Splits *FileSplits   `json:"splits,omitempty"`
	// Columns declares the cells of a row and how each encodes its value,
	// so that hbkit get and scan decode them; optional.
	Columns []FileColumn `json:"columns,omitempty"`
}

// FileColumn declares one column: a field name unique among the table's
// fields, its family and qualifier, and its type: "string", "int64",
// "float64", "bool", "time" (Unix milliseconds as Bytes.toBytes(long)) or
// "bytes" (the default), as schema.ColumnType names them.
type FileColumn struct {
	Name      string `json:"name"`
	Family    string `json:"family"`
	Qualifier string `json:"qualifier"`
	Type      string `json:"type,omitempty"`
}

// FileFamily declares one column family. Options are keyed by HBase's
// attribute names (BLOOMFILTER, VERSIONS, MIN_VERSIONS, COMPRESSION, TTL,
// BLOCKSIZE, IN_MEMORY, BLOCKCACHE, DATA_BLOCK_ENCODING), with string,
// number or boolean values as the HBase shell takes them; options left
// out take HBase's defaults.
type FileFamily struct {
	Name    string                     `json:"name"`
	Options map[string]json.RawMessage `json:"options,omitempty"`
}

// FileSegment is one row-key segment. Kind is one of
//
//	bucket            hash(From) % Buckets, zero-padded decimal (keys.HashBucket)
//	java_bucket       From.hashCode() % Buckets as Java computes it, Rule being
//	                  mask, abs or floormod, zero-padded decimal (keys.JavaHashBucket)
//	md5hex            first Width hex digits of md5(From) (keys.MD5Hex)
//	reversed_digits   Width decimal digits, reversed (keys.ReversedDigits)
//	digits            Width decimal digits (keys.Digits)
//	fixed             a string padded with spaces to Width bytes (keys.Fixed)
//	reversed_timestamp Long.MAX_VALUE - ms, 19 digits (keys.ReversedTimestamp)
//	string            a variable-length escaped string (keys.String)
//	trailing_string   raw bytes to the end of the key; last only (keys.TrailingString)
//	java_long         Bytes.toBytes(long), 8 bytes (keys.JavaLong)
//	java_int          Bytes.toBytes(int), 4 bytes (keys.JavaInt)
//	java_short        Bytes.toBytes(short), 2 bytes (keys.JavaShort)
//	java_partition    Bytes.toBytes(From % Buckets), seed 003's partition; From
//	                  names a java_long segment (keys.JavaPartition)
//	joined            Parts joined by Delimiter, as Java concatenates strings
//	                  ("辽宁省_20"); the group has no name of its own and comes
//	                  last (keys.Joined)
type FileSegment struct {
	Name      string     `json:"name"`
	Kind      string     `json:"kind"`
	Width     int        `json:"width,omitempty"`
	Buckets   int        `json:"buckets,omitempty"`
	From      string     `json:"from,omitempty"`
	Rule      string     `json:"rule,omitempty"`
	Delimiter string     `json:"delimiter,omitempty"`
	Parts     []FilePart `json:"parts,omitempty"`
}

// FilePart is one part of a joined segment. Kind is "string" (the text as is,
// keys.TextString) or "int" (a number as Java's String.valueOf writes it,
// keys.TextInt).
type FilePart struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// FileSplits says how the table is pre-split. Set exactly one of Keys,
// HexKeys, or Regions (optionally with Algorithm):
//
//   - keys: explicit split keys as strings, e.g. ["05", "10"];
//   - hex_keys: explicit split keys in hex, for binary keys;
//   - regions alone: that many regions cut from the keyspace of the
//     leading key segment (schema.Splits.Regions);
//   - regions with algorithm: HexStringSplit, DecimalStringSplit or
//     UniformSplit (HBase's RegionSplitter algorithms), BucketSplit
//     (buckets: a zero-padded decimal bucket prefix 0..buckets-1) or
//     DecimalPrefixSplit (width: a uniform decimal prefix of that many
//     digits).
type FileSplits struct {
	Keys      []string `json:"keys,omitempty"`
	HexKeys   []string `json:"hex_keys,omitempty"`
	Regions   int      `json:"regions,omitempty"`
	Algorithm string   `json:"algorithm,omitempty"`
	Buckets   int      `json:"buckets,omitempty"`
	Width     int      `json:"width,omitempty"`
}

// ParseSchemaFile reads a JSON schema file and returns its tables as
// definitions, in file order. A file whose top-level object has a
// "version" is a schema document (schema.Document): its table, then its
// index tables. Unknown fields, unknown options, trailing
// data and anything package schema rejects are errors wrapping
// ErrInvalidSchema that name the table and field; nothing is sent
// anywhere.
func ParseSchemaFile(r io.Reader) ([]schema.Definition, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSchemaFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("admin: schema file: %w", err)
	}
	if len(data) > MaxSchemaFileSize {
		return nil, fmt.Errorf("%w: schema file larger than %d bytes", ErrInvalidSchema, MaxSchemaFileSize)
	}
	if isDocument(data) {
		return documentDefinitions(data)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: schema file: %w", ErrInvalidSchema, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: schema file: data after the top-level object", ErrInvalidSchema)
	}
	if len(f.Tables) == 0 {
		return nil, fmt.Errorf("%w: schema file declares no tables", ErrInvalidSchema)
	}
	out := make([]schema.Definition, 0, len(f.Tables))
	seen := make(map[string]bool)
	for i, t := range f.Tables {
		d, err := t.definition()
		if err != nil {
			return nil, fmt.Errorf("%w: tables[%d] (%q): %w", ErrInvalidSchema, i, t.Name, err)
		}
		full := d.Name().FullName()
		if seen[full] {
			return nil, fmt.Errorf("%w: tables[%d]: table %q declared twice", ErrInvalidSchema, i, t.Name)
		}
		seen[full] = true
		out = append(out, d)
	}
	return out, nil
}

// record is the record type of a file-declared table: string and integer
// key fields and encoded cells by name. Admin never encodes records; the
// layout exists so that split keys can be cut from it and keys can be cut
// into parts, and the columns so that rows can be read (schema.Viewer).
type record struct {
	s map[string]string
	n map[string]int64
	c map[string][]byte
}

func (r *record) str(name string) string { return r.s[name] }
func (r *record) setStr(name, v string) {
	if r.s == nil {
		r.s = map[string]string{}
	}
	r.s[name] = v
}

func (t FileTable) definition() (schema.Definition, error) {
	fams := make([]schema.Family, 0, len(t.Families))
	for i, ff := range t.Families {
		f, err := ff.family()
		if err != nil {
			return nil, fmt.Errorf("families[%d]: %w", i, err)
		}
		fams = append(fams, f)
	}
	segs := t.Key
	if len(segs) == 0 {
		segs = []FileSegment{{Name: "row", Kind: "string"}}
	}
	fields := make([]keys.Field[record], 0, len(segs))
	from := map[string]string{}
	for i, s := range segs {
		if s.From != "" {
			from[s.Name] = s.From
		}
		if s.Kind == "joined" {
			fs, err := s.joined()
			if err != nil {
				return nil, fmt.Errorf("key[%d]: %w", i, err)
			}
			fields = append(fields, fs...)
			continue
		}
		f, err := s.field()
		if err != nil {
			return nil, fmt.Errorf("key[%d]: %w", i, err)
		}
		fields = append(fields, f)
	}
	layout, err := keys.NewLayout(fields...)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	splits, err := t.Splits.splits()
	if err != nil {
		return nil, fmt.Errorf("splits: %w", err)
	}
	cols := make([]schema.Column[record], len(t.Columns))
	for i, fc := range t.Columns {
		if cols[i], err = fc.column(); err != nil {
			return nil, fmt.Errorf("columns[%d]: %w", i, err)
		}
	}
	// A segment computed from a field the table declares (a key field or
	// a column) is computed from the value a read gives; "from" may also
	// name a field the file does not declare, which only writers know.
	for seg, src := range from {
		i := layout.SegmentIndex(src)
		declared := i >= 0 && src != seg && layout.Segments()[i].Decodable ||
			slices.ContainsFunc(t.Columns, func(c FileColumn) bool { return c.Name == src })
		if !declared {
			delete(from, seg)
		}
	}
	return schema.New(schema.Spec[record]{Name: t.Name, Families: fams, Key: layout, Splits: splits, Columns: cols, From: from})
}

// column maps a cell to the record's cell values, as is: its type only
// says how to read it.
func (fc FileColumn) column() (schema.Column[record], error) {
	typ := schema.ColumnBytes
	if fc.Type != "" {
		var err error
		if typ, err = schema.ParseColumnType(fc.Type); err != nil {
			return schema.Column[record]{}, fmt.Errorf("column %q: %w", fc.Name, err)
		}
	}
	name := fc.Name
	return schema.Column[record]{
		Name: name, Family: fc.Family, Qualifier: fc.Qualifier, Type: typ,
		Append: func(dst []byte, r *record) ([]byte, bool) {
			v, ok := r.c[name]
			return append(dst, v...), ok
		},
		Set: func(r *record, v []byte) error {
			if r.c == nil {
				r.c = map[string][]byte{}
			}
			r.c[name] = bytes.Clone(v)
			return nil
		},
	}, nil
}

func (ff FileFamily) family() (schema.Family, error) {
	attrs := make(map[string]string, len(ff.Options))
	known := schema.AttributeNames()
	for k, raw := range ff.Options {
		if !slices.Contains(known, k) {
			return schema.Family{}, fmt.Errorf("family %q: unknown option %q (want one of %v)", ff.Name, k, known)
		}
		v, err := optionValue(raw)
		if err != nil {
			return schema.Family{}, fmt.Errorf("family %q: option %s: %w", ff.Name, k, err)
		}
		attrs[k] = v
	}
	return schema.ParseFamily(ff.Name, attrs)
}

// optionValue turns a JSON string, integer or boolean into the string
// form HBase uses.
func optionValue(raw json.RawMessage) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err != nil {
			return "", fmt.Errorf("%s is not an integer", x)
		}
		return string(x), nil
	}
	return "", fmt.Errorf("want a string, an integer or a boolean, got %s", raw)
}

func (r *record) num(name string) int64 { return r.n[name] }
func (r *record) setNum(name string, v int64) {
	if r.n == nil {
		r.n = map[string]int64{}
	}
	r.n[name] = v
}

// segmentKinds are the kinds a FileSegment may have.
var segmentKinds = []string{"bucket", "java_bucket", "md5hex", "reversed_digits", "digits", "fixed", "reversed_timestamp", "string",
	"trailing_string", "java_long", "java_int", "java_short", "java_partition", "joined"}

// joined returns the fields of a joined segment, one per part.
func (s FileSegment) joined() ([]keys.Field[record], error) {
	switch {
	case s.Name != "":
		return nil, fmt.Errorf("segment %q: kind joined takes no name; name its parts", s.Name)
	case s.Width != 0 || s.Buckets != 0 || s.From != "" || s.Rule != "":
		return nil, errors.New("kind joined takes only delimiter and parts")
	case s.Delimiter == "":
		return nil, errors.New("kind joined needs \"delimiter\", the text between its parts")
	case len(s.Parts) == 0:
		return nil, errors.New("kind joined needs \"parts\"")
	}
	parts := make([]keys.Text[record], len(s.Parts))
	for i, p := range s.Parts {
		name := p.Name
		if name == "" {
			return nil, fmt.Errorf("parts[%d] has no name", i)
		}
		switch p.Kind {
		case "string":
			parts[i] = keys.TextString(name, func(r *record) string { return r.str(name) }, func(r *record, v string) { r.setStr(name, v) })
		case "int":
			parts[i] = keys.TextInt(name, func(r *record) int64 { return r.num(name) }, func(r *record, v int64) { r.setNum(name, v) })
		default:
			return nil, fmt.Errorf("part %q: unknown kind %q (want string or int)", name, p.Kind)
		}
	}
	return keys.Joined(s.Delimiter, parts...), nil
}

func (s FileSegment) field() (keys.Field[record], error) {
	if s.Name == "" {
		return keys.Field[record]{}, errors.New("segment has no name")
	}
	switch s.Kind {
	case "bucket", "java_bucket", "md5hex", "java_partition":
		return s.hashField()
	case "reversed_digits", "digits", "fixed", "reversed_timestamp", "string", "trailing_string", "java_long", "java_int", "java_short":
		return s.valueField()
	}
	return keys.Field[record]{}, fmt.Errorf("segment %q: unknown kind %q (want %s)", s.Name, s.Kind, strings.Join(segmentKinds, ", "))
}

// takes refuses the settings the segment's kind does not take: width,
// buckets and from unless allowed, a rule but for java_bucket, and a
// joined segment's delimiter and parts.
func (s FileSegment) takes(width, buckets, from bool) error {
	switch {
	case s.Rule != "" && s.Kind != "java_bucket":
		return fmt.Errorf("segment %q: kind %s takes no rule", s.Name, s.Kind)
	case s.Delimiter != "" || len(s.Parts) > 0:
		return fmt.Errorf("segment %q: kind %s takes no delimiter or parts", s.Name, s.Kind)
	case !width && s.Width != 0:
		return fmt.Errorf("segment %q: kind %s takes no width", s.Name, s.Kind)
	case !buckets && s.Buckets != 0:
		return fmt.Errorf("segment %q: kind %s takes no buckets", s.Name, s.Kind)
	case !from && s.From != "":
		return fmt.Errorf("segment %q: kind %s takes no from", s.Name, s.Kind)
	}
	return nil
}

// hashField is a segment computed from another field (From): a hash
// bucket, an MD5 prefix, or a Java partition.
func (s FileSegment) hashField() (keys.Field[record], error) {
	name, src := s.Name, s.From
	var f keys.Field[record]
	if err := s.takes(s.Kind == "md5hex", s.Kind != "md5hex", true); err != nil {
		return f, err
	}
	if src == "" {
		if s.Kind == "java_partition" {
			return f, fmt.Errorf("segment %q: kind java_partition needs \"from\", the long it takes modulo buckets", name)
		}
		return f, fmt.Errorf("segment %q: kind %s needs \"from\", the field it hashes", name, s.Kind)
	}
	g := func(r *record) string { return r.str(src) }
	switch s.Kind {
	case "bucket":
		return keys.HashBucket(name, s.Buckets, g, nil), nil
	case "md5hex":
		return keys.MD5Hex(name, s.Width, g), nil
	case "java_partition":
		return keys.JavaPartition(name, s.Buckets, func(r *record) int64 { return r.num(src) },
			func(r *record, v int64) { r.setNum(name, v) }), nil
	}
	if s.Rule == "" {
		return f, fmt.Errorf("segment %q: kind java_bucket needs \"rule\": mask, abs or floormod, as the Java code computes the bucket", name)
	}
	rule, err := keys.ParseJavaBucketRule(s.Rule)
	if err != nil {
		return f, fmt.Errorf("segment %q: %w", name, err)
	}
	return keys.JavaHashBucket(name, s.Buckets, rule, g, nil), nil
}

// valueField is a segment holding a field's own value.
func (s FileSegment) valueField() (keys.Field[record], error) {
	name := s.Name
	get := func(r *record) string { return r.str(name) }
	set := func(r *record, v string) { r.setStr(name, v) }
	getNum := func(r *record) int64 { return r.num(name) }
	setNum := func(r *record, v int64) { r.setNum(name, v) }
	sized := s.Kind == "reversed_digits" || s.Kind == "digits" || s.Kind == "fixed"
	if err := s.takes(sized, false, false); err != nil {
		return keys.Field[record]{}, err
	}
	switch s.Kind {
	case "reversed_digits":
		return keys.ReversedDigits(name, s.Width, get, set), nil
	case "digits":
		return keys.Digits(name, s.Width, get, set), nil
	case "fixed":
		return keys.Fixed(name, s.Width, ' ', get, set), nil
	case "reversed_timestamp":
		return keys.ReversedTimestamp(name, getNum, setNum), nil
	case "string":
		return keys.String(name, get, set), nil
	case "trailing_string":
		return keys.TrailingString(name, get, set), nil
	case "java_long":
		return keys.JavaLong(name, getNum, setNum), nil
	case "java_int":
		return keys.JavaInt(name, func(r *record) int32 { return int32(r.num(name)) }, func(r *record, v int32) { r.setNum(name, int64(v)) }), nil
	}
	return keys.JavaShort(name, func(r *record) int16 { return int16(r.num(name)) }, func(r *record, v int16) { r.setNum(name, int64(v)) }), nil
}

func (fs *FileSplits) splits() (schema.Splits, error) {
	if fs == nil {
		return schema.Splits{}, nil
	}
	set := 0
	for _, b := range []bool{len(fs.Keys) > 0, len(fs.HexKeys) > 0, fs.Regions != 0} {
		if b {
			set++
		}
	}
	if set != 1 {
		return schema.Splits{}, errors.New("set exactly one of keys, hex_keys and regions")
	}
	if fs.Algorithm == "" && (fs.Buckets != 0 || fs.Width != 0) {
		return schema.Splits{}, errors.New("buckets and width need an algorithm")
	}
	if fs.Regions == 0 {
		return fs.explicit()
	}
	return fs.computed()
}

// explicit is the split keys the file lists, as text or hex.
func (fs *FileSplits) explicit() (schema.Splits, error) {
	switch {
	case len(fs.Keys) > 0:
		if fs.Algorithm != "" {
			return schema.Splits{}, errors.New("algorithm needs regions, not explicit keys")
		}
		ks := make([][]byte, len(fs.Keys))
		for i, k := range fs.Keys {
			ks[i] = []byte(k)
		}
		return schema.Splits{Keys: ks}, nil
	case len(fs.HexKeys) > 0:
		if fs.Algorithm != "" {
			return schema.Splits{}, errors.New("algorithm needs regions, not explicit keys")
		}
		ks := make([][]byte, len(fs.HexKeys))
		for i, k := range fs.HexKeys {
			b, err := hex.DecodeString(k)
			if err != nil {
				return schema.Splits{}, fmt.Errorf("hex_keys[%d]: %w", i, err)
			}
			ks[i] = b
		}
		return schema.Splits{Keys: ks}, nil
	}
	return schema.Splits{}, nil
}

// computed is the split keys of Regions regions by the file's algorithm
// (none: HBase's even split of the key space).
func (fs *FileSplits) computed() (schema.Splits, error) {
	if fs.Regions < 1 {
		return schema.Splits{}, fmt.Errorf("regions must be at least 1, got %d", fs.Regions)
	}
	var (
		ks  [][]byte
		err error
	)
	switch fs.Algorithm {
	case "":
		return schema.Splits{Regions: fs.Regions}, nil
	case "HexStringSplit":
		ks, err = keys.HexStringSplit(fs.Regions)
	case "DecimalStringSplit":
		ks, err = keys.DecimalStringSplit(fs.Regions)
	case "UniformSplit":
		ks, err = keys.UniformSplit(fs.Regions)
	case "BucketSplit":
		if fs.Buckets < 1 {
			return schema.Splits{}, errors.New("BucketSplit needs buckets >= 1")
		}
		ks, err = keys.BucketSplits(uint64(fs.Buckets), fs.Regions, keys.BucketWidth(fs.Buckets))
	case "DecimalPrefixSplit":
		ks, err = keys.DecimalPrefixSplits(fs.Regions, fs.Width)
	default:
		return schema.Splits{}, fmt.Errorf("unknown algorithm %q (want HexStringSplit, DecimalStringSplit, UniformSplit, BucketSplit or DecimalPrefixSplit)", fs.Algorithm)
	}
	if err != nil {
		return schema.Splits{}, err
	}
	switch fs.Algorithm {
	case "BucketSplit":
		if fs.Width != 0 {
			return schema.Splits{}, errors.New("BucketSplit takes no width")
		}
	case "DecimalPrefixSplit":
		if fs.Buckets != 0 {
			return schema.Splits{}, errors.New("DecimalPrefixSplit takes no buckets")
		}
	default:
		if fs.Buckets != 0 || fs.Width != 0 {
			return schema.Splits{}, fmt.Errorf("%s takes no buckets or width", fs.Algorithm)
		}
	}
	return schema.Splits{Keys: ks}, nil
}
