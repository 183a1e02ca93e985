package schema

import (
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/keys"
)

// KeyPart is one segment of an encoded row key: the segment's name and the
// bytes it occupies in the key (aliasing the key).
type KeyPart struct {
	Segment string
	Bytes   []byte
}

// String renders the part as name=bytes, the bytes quoted with printable
// ASCII as is and other bytes as \xHH.
func (p KeyPart) String() string { return p.Segment + "=" + QuoteKey(p.Bytes) }

// QuoteKey renders key bytes readably: printable ASCII as is (with '"' and
// '\' escaped) and every other byte as \xHH, between double quotes, the
// form HBase's Bytes.toStringBinary uses without the quotes.
func QuoteKey(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + 2)
	sb.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		default:
			sb.WriteString(`\x`)
			sb.WriteByte("0123456789ABCDEF"[c>>4])
			sb.WriteByte("0123456789ABCDEF"[c&0xf])
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// keyParts cuts key into its segments by decoding one more field at a time
// into a scratch record. Keys hold personal data: callers decide where the
// result may go.
func keyParts[T any](table string, l *keys.Layout[T], key []byte) ([]KeyPart, error) {
	segs := l.Segments()
	parts := make([]KeyPart, 0, len(segs))
	var scratch T
	start := 0
	for i, s := range segs {
		// DecodePrefix always starts at the first field; decoding i+1
		// fields tells where field i ends.
		rest, err := l.DecodePrefix(key, &scratch, i+1)
		if err != nil {
			return parts, keyError(table, err)
		}
		end := len(key) - len(rest)
		parts = append(parts, KeyPart{Segment: s.Name, Bytes: key[start:end:end]})
		start = end
	}
	rest := key[start:]
	if len(rest) != 0 {
		return parts, &Error{Table: table, Field: "key", Value: strconv.Itoa(len(rest)) + " bytes",
			Reason: "bytes left after the last segment", Kind: ErrInvalidKey}
	}
	return parts, nil
}

// KeyParts cuts a row key of the table into its segments, for display and
// debugging.
func (t *Table[T]) KeyParts(key []byte) ([]KeyPart, error) {
	return keyParts(t.name.String(), t.key, key)
}

// KeyParts cuts an index row key into its segments.
func (ix *Index[T]) KeyParts(key []byte) ([]KeyPart, error) {
	return keyParts(ix.name.String(), ix.key, key)
}

// QuoteKeys renders a list of keys, such as split keys, with QuoteKey:
// ["05" "10" "15"].
func QuoteKeys(ks [][]byte) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, k := range ks {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(QuoteKey(k))
	}
	sb.WriteByte(']')
	return sb.String()
}
