package schema

import (
	"github.com/hbkit/hbkit/keys"
)

// valueType is the type of the value a segment kind encodes, which its
// field is read as (see the accessors of document_open.go).
type valueType uint8

const (
	valNone     valueType = iota // literal, salt: no field
	valString                    // strings, texts and hashes of strings
	valUint                      // decimal, uint64, unique
	valInt                       // int64, Java integers, decimal text, partitions
	valMillis                    // Unix milliseconds: timestamps, time base and offset
	valTime                      // date
	valDuration                  // reversed time of day
	valCustom                    // the codec's value type
)

// docKind describes a segment kind of the document: its keys.Kind, the
// parameters it needs and may take, and the value it encodes.
type docKind struct {
	name  string
	kind  keys.Kind
	need  []string // parameters that must be set
	may   []string // parameters that may be set
	value valueType
	hash  bool // computed from a field and not decodable into it
}

// docKinds lists every segment kind of a document, one per keys.Kind
// (java_hash_bucket and hash_bucket share KindBucket; joined is a group).
var docKinds = []docKind{
	{name: "literal", kind: keys.KindLiteral, need: []string{"value"}},
	{name: "reversed_digits", kind: keys.KindReversedDigits, need: []string{"width"}, value: valString},
	{name: "decimal", kind: keys.KindDecimal, need: []string{"width"}, may: []string{"modulo"}, value: valUint},
	{name: "reversed_timestamp", kind: keys.KindReversedTimestamp, value: valMillis},
	{name: "reversed_timestamp_binary", kind: keys.KindReversedTimestampBinary, value: valMillis},
	{name: "date", kind: keys.KindDate, may: []string{"zone"}, value: valTime},
	{name: "reversed_time_of_day", kind: keys.KindReversedTimeOfDay, may: []string{"zone"}, value: valDuration},
	{name: "md5_hex", kind: keys.KindMD5Hex, need: []string{"width"}, value: valString, hash: true},
	{name: "md5", kind: keys.KindMD5, need: []string{"width"}, value: valString, hash: true},
	{name: "hash_bucket", kind: keys.KindBucket, need: []string{"buckets"}, value: valString, hash: true},
	{name: "java_hash_bucket", kind: keys.KindBucket, need: []string{"buckets", "rule"}, value: valString, hash: true},
	{name: "hash_bucket_byte", kind: keys.KindBucketByte, need: []string{"buckets"}, value: valString, hash: true},
	{name: "salt", kind: keys.KindSalt, need: []string{"buckets"}, hash: true},
	{name: "fixed", kind: keys.KindFixed, need: []string{"width"}, may: []string{"pad"}, value: valString},
	{name: "uint64", kind: keys.KindUint64, value: valUint},
	{name: "int64", kind: keys.KindInt64, value: valInt},
	{name: "string", kind: keys.KindString, value: valString},
	{name: "unique", kind: keys.KindUnique, need: []string{"width"}, value: valUint},
	{name: "digits", kind: keys.KindDigits, need: []string{"width"}, value: valString},
	{name: "trailing_string", kind: keys.KindTrailingString, value: valString},
	{name: "java_short", kind: keys.KindJavaShort, value: valInt},
	{name: "java_int", kind: keys.KindJavaInt, value: valInt},
	{name: "java_long", kind: keys.KindJavaLong, value: valInt},
	{name: "java_partition", kind: keys.KindJavaPartition, need: []string{"buckets"}, value: valInt, hash: true},
	{name: "text", kind: keys.KindText, value: valString},
	{name: "decimal_text", kind: keys.KindDecimalText, value: valInt},
	{name: "custom", kind: keys.KindCustom, need: []string{"codec"}, may: []string{"width"}, value: valCustom},
	{name: "time_base", kind: keys.KindTimeBase, need: []string{"span"}, value: valMillis},
	{name: "time_offset", kind: keys.KindTimeOffset, need: []string{"span"}, value: valMillis},
	{name: "joined", need: []string{"delimiter", "parts"}},
}

// lookupKind returns the document kind called name.
func lookupKind(name string) (docKind, bool) {
	for _, k := range docKinds {
		if k.name == name {
			return k, true
		}
	}
	return docKind{}, false
}

// paramsSet lists the parameters s sets, by JSON name.
func (s DocSegment) paramsSet() []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(s.Width != 0, "width")
	add(s.Value != "", "value")
	add(s.Pad != 0, "pad")
	add(s.Buckets != 0, "buckets")
	add(s.Rule != "", "rule")
	add(s.Zone != "", "zone")
	add(s.Span != "", "span")
	add(s.Modulo != 0, "modulo")
	add(s.Codec != "", "codec")
	add(s.Delimiter != "", "delimiter")
	add(len(s.Parts) > 0, "parts")
	return out
}

// decodes reports whether the segment writes its value back when a key
// is decoded: Decodable when set, else a segment that holds a value of
// its own field (no From) and is not a hash.
func (s DocSegment) decodes(k docKind) bool {
	if s.Decodable != nil {
		return *s.Decodable
	}
	return k.value != valNone && !k.hash && s.From == ""
}

// source is the field a segment reads: From, or its own name.
func (s DocSegment) source() string {
	if s.From != "" {
		return s.From
	}
	return s.Name
}
