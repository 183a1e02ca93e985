package schema

import (
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

// keyParts cuts key into its segments with keys' Layout.Parts. Keys hold
// personal data: callers decide where the result may go.
func keyParts[T any](table string, l *keys.Layout[T], key []byte) ([]KeyPart, error) {
	raw, err := l.Parts(key)
	if err != nil {
		return nil, keyError(table, err)
	}
	segs := l.Segments()
	parts := make([]KeyPart, len(raw))
	for i, b := range raw {
		parts[i] = KeyPart{Segment: segs[i].Name, Bytes: b}
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
