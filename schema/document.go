package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DocumentVersion is the version of the schema document this package
// writes and reads. A document of another version is refused with
// ErrDocumentVersion.
const DocumentVersion = 1

// DocumentAttribute is the table attribute (HBase descriptor value) that
// holds a table's document, in JSON, next to IndexStateAttribute; admin's
// EnsureTables writes it.
const DocumentAttribute = "hbkit.schema"

// MaxDocumentSize bounds the JSON form of a document that ParseDocument
// and ReadDocument accept.
const MaxDocumentSize = 1 << 20

// Errors of schema documents, the Kind of a *Error.
var (
	// ErrInvalidDocument: a document that is not valid JSON of this shape,
	// or that names an unknown field, kind or type, or misses a parameter.
	ErrInvalidDocument = fmt.Errorf("schema: invalid schema document: %w", ErrInvalidTable)
	// ErrDocumentVersion: a document of a version this package does not read.
	ErrDocumentVersion = fmt.Errorf("schema: unknown schema document version: %w", ErrInvalidDocument)
	// ErrUnknownCodec: a custom segment whose codec was not supplied to
	// FromDocument (WithCodec).
	ErrUnknownCodec = errors.New("schema: custom codec not supplied")
)

// Document is the schema of a table as data: a versioned, complete
// description of the table and its indexes that a Go declaration exports
// (Table.Document, WideTable.Document), that FromDocument and Open turn
// back into a table encoding the same bytes, and that admin stores with
// the table. Its JSON form, for a table of text messages (abridged):
//
//	{
//	  "version": 1,
//	  "name": "messages",
//	  "families": [{"name": "cf", "bloom_filter": "ROW", "versions": 1, "compression": "SNAPPY"}],
//	  "fields": [
//	    {"name": "mobile", "type": "string"}, {"name": "sent", "type": "time"},
//	    {"name": "unique", "type": "uint64"}, {"name": "account", "type": "string"},
//	    {"name": "content", "type": "string"}, {"name": "delivered", "type": "bool"}
//	  ],
//	  "key": [
//	    {"name": "mobile", "kind": "reversed_digits", "width": 11},
//	    {"name": "sent", "kind": "reversed_timestamp"},
//	    {"name": "unique", "kind": "unique", "width": 4}
//	  ],
//	  "columns": [
//	    {"name": "account", "family": "cf", "qualifier": "a", "type": "string"},
//	    {"name": "content", "family": "cf", "qualifier": "c", "type": "string"},
//	    {"name": "delivered", "family": "cf", "qualifier": "d", "type": "bool"}
//	  ],
//	  "splits": {"regions": 20},
//	  "writes": "insert-only",
//	  "validate": true,
//	  "indexes": [{
//	    "name": "messages_by_account",
//	    "families": [{"name": "cf", "bloom_filter": "ROW", "versions": 1,
//	      "compression": "SNAPPY", "data_block_encoding": "FAST_DIFF"}],
//	    "key": [
//	      {"name": "bucket", "kind": "hash_bucket", "buckets": 10, "from": "mobile"},
//	      {"name": "day", "kind": "date", "from": "sent"},
//	      {"name": "account_md5", "kind": "md5_hex", "width": 16, "from": "account"},
//	      {"name": "mobile", "kind": "digits", "width": 11},
//	      {"name": "time", "kind": "reversed_time_of_day", "from": "sent"},
//	      {"name": "unique", "kind": "unique", "width": 4}
//	    ],
//	    "splits": {"regions": 10},
//	    "columns": ["delivered"],
//	    "row_key_qualifier": "row"
//	  }]
//	}
//
// Fields declares each record field once, with its type; key segments,
// columns, UIDs and indexes refer to fields by name. A segment holds the
// field of its name, or, with From, is computed from another field. The
// segment kinds and their parameters are listed at DocSegment.
//
// What a document cannot hold is named in it: a custom segment records its
// codec's name (supply the codec with WithCodec), and Validate says the Go
// declaration checks records with a function of its own (WithValidate).
type Document struct {
	Version  int          `json:"version"`
	Name     string       `json:"name"`
	Families []DocFamily  `json:"families"`
	Fields   []DocField   `json:"fields"`
	Key      []DocSegment `json:"key"`
	Columns  []DocColumn  `json:"columns,omitempty"`
	Splits   *DocSplits   `json:"splits,omitempty"`
	// Writes is the WriteMode: "strict" (the default), "mutable",
	// "insert-only" or "verify-on-read".
	Writes string `json:"writes,omitempty"`
	// Validate reports that the declaration checks records with a
	// function (Spec.Validate) the document does not hold.
	Validate bool       `json:"validate,omitempty"`
	UIDs     []DocUID   `json:"uids,omitempty"`
	Indexes  []DocIndex `json:"indexes,omitempty"`
	// Wide, when set, makes the table a wide table (WideSpec): Columns and
	// Indexes are then empty.
	Wide *DocWide `json:"wide,omitempty"`
}

// DocFamily is a column family and its declared options; an option left
// out takes HBase's default, as a zero field of Family does. TTL is in
// whole seconds.
type DocFamily struct {
	Name              string `json:"name"`
	BloomFilter       string `json:"bloom_filter,omitempty"`
	Versions          int    `json:"versions,omitempty"`
	MinVersions       int    `json:"min_versions,omitempty"`
	Compression       string `json:"compression,omitempty"`
	TTLSeconds        int64  `json:"ttl_seconds,omitempty"`
	BlockSize         int    `json:"block_size,omitempty"`
	InMemory          *bool  `json:"in_memory,omitempty"`
	BlockCache        *bool  `json:"block_cache,omitempty"`
	DataBlockEncoding string `json:"data_block_encoding,omitempty"`
}

// DocField declares a record field: its name and its type, one of
// "string", "bytes", "int64", "uint64", "float64", "bool", "time" and
// "duration" (the accessors of Fields). A field only a custom segment
// uses may leave Type empty: it is the value type of the codec.
type DocField struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// DocSegment is one segment of a key or qualifier layout. Kind and the
// parameters it takes (all others must be left out):
//
//	literal                    value: the constant text
//	reversed_digits, digits    width
//	decimal                    width; modulo: the field's value mod modulo
//	reversed_timestamp, reversed_timestamp_binary
//	date                       zone: an IANA zone name, UTC when empty
//	reversed_time_of_day       zone, as for date, when the field is a time
//	md5_hex, md5               width (hex digits, bytes)
//	hash_bucket, hash_bucket_byte   buckets
//	java_hash_bucket           buckets, rule: mask, abs or floormod
//	salt                       buckets
//	fixed                      width, pad: the padding byte (0 when left out)
//	uint64, int64, string, trailing_string
//	unique                     width (hex digits)
//	java_short, java_int, java_long
//	java_partition             buckets (the partition count)
//	time_base, time_offset     span: a Go duration such as "5m0s"
//	custom                     codec: the codec's name; width when fixed
//	joined                     delimiter, parts: text and decimal_text parts
//
// From names the field a segment is computed from when it is not the
// field of its own name (a hash of "mobile", the date of "sent").
// Decodable overrides whether decoding a key writes the segment's value
// back: by default a segment that holds a value and has no From does, and
// hashes, buckets, salts and computed segments do not.
type DocSegment struct {
	Name      string       `json:"name"`
	Kind      string       `json:"kind"`
	From      string       `json:"from,omitempty"`
	Decodable *bool        `json:"decodable,omitempty"`
	Width     int          `json:"width,omitempty"`
	Value     string       `json:"value,omitempty"`
	Pad       int          `json:"pad,omitempty"`
	Buckets   int          `json:"buckets,omitempty"`
	Rule      string       `json:"rule,omitempty"`
	Zone      string       `json:"zone,omitempty"`
	Span      string       `json:"span,omitempty"`
	Modulo    uint64       `json:"modulo,omitempty"`
	Codec     string       `json:"codec,omitempty"`
	Delimiter string       `json:"delimiter,omitempty"`
	Parts     []DocSegment `json:"parts,omitempty"`
}

// DocColumn maps a field to a cell. Type is a ColumnType name ("bytes",
// "string", "int64", "float64", "bool", "time"); empty means bytes.
type DocColumn struct {
	Name      string `json:"name"`
	Family    string `json:"family"`
	Qualifier string `json:"qualifier"`
	Type      string `json:"type,omitempty"`
}

// DocSplits pre-splits a table: Regions cut from the leading key segment
// (Splits.Regions), or explicit split keys, as text (Keys) or in hex
// (HexKeys). Set one of the three.
type DocSplits struct {
	Regions int      `json:"regions,omitempty"`
	Keys    []string `json:"keys,omitempty"`
	HexKeys []string `json:"hex_keys,omitempty"`
}

// DocUID declares a key segment holding the id a UID table assigns to a
// name (UID): the segment, a custom segment of codec "uid", is the id
// field; Field is the field holding the name.
type DocUID struct {
	Segment string `json:"segment"`
	Kind    string `json:"kind"`
	Width   int    `json:"width"`
	Field   string `json:"field"`
}

// DocIndex declares an index table (IndexSpec). Columns names the
// table's columns an entry carries; Qualifier, when set, makes the index
// inverted.
type DocIndex struct {
	Name            string       `json:"name"`
	Families        []DocFamily  `json:"families"`
	Family          string       `json:"family,omitempty"`
	Key             []DocSegment `json:"key"`
	Splits          *DocSplits   `json:"splits,omitempty"`
	Columns         []string     `json:"columns,omitempty"`
	RowKeyQualifier string       `json:"row_key_qualifier,omitempty"`
	Qualifier       []DocSegment `json:"qualifier,omitempty"`
}

// DocWide is the wide half of a wide table (WideSpec): the qualifier
// layout and the value column, whose Qualifier is empty.
type DocWide struct {
	Qualifier []DocSegment `json:"qualifier"`
	Value     DocColumn    `json:"value"`
}

// ParseDocument decodes the JSON form of a document strictly and checks
// it (Document.Check): an unknown field, a value of the wrong type,
// trailing data, an unknown version or kind, or a missing parameter is a
// *Error with Kind ErrInvalidDocument whose Field is the path of the
// offending value, such as "indexes[0].key[2].width".
func ParseDocument(data []byte) (Document, error) {
	if len(data) > MaxDocumentSize {
		return Document{}, docError("", "", "document larger than "+strconv.Itoa(MaxDocumentSize)+" bytes")
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Document{}, &Error{Reason: "not JSON", Kind: ErrInvalidDocument, Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return Document{}, docError("", "", "data after the document")
	}
	if err := checkShape(raw, docShape, ""); err != nil {
		return Document{}, err
	}
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return Document{}, &Error{Reason: "cannot decode", Kind: ErrInvalidDocument, Err: err}
	}
	if err := d.Check(); err != nil {
		return Document{}, err
	}
	return d, nil
}

// ReadDocument reads at most MaxDocumentSize bytes from r and parses
// them (ParseDocument).
func ReadDocument(r io.Reader) (Document, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDocumentSize+1))
	if err != nil {
		return Document{}, fmt.Errorf("schema: read document: %w", err)
	}
	return ParseDocument(data)
}

// JSON returns the document's indented JSON form. Equal documents give
// equal bytes.
func (d Document) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("schema: encode document: %w", err)
	}
	return append(b, '\n'), nil
}

// docError is the *Error of a document problem at path.
func docError(table, path, reason string) *Error {
	return &Error{Table: table, Field: path, Reason: reason, Kind: ErrInvalidDocument}
}
