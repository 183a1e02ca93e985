package schema

import (
	"errors"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/keys"
)

// MaxUIDWidth is the widest id a UID table assigns, in bytes.
const MaxUIDWidth = 8

// UID declares a row-key field that holds, instead of a name of the record
// (a hostname, an event type), the fixed-width id a UID table assigned to
// that name (seed 004's LOG_TYPES; see dao.UIDs). The key stays short and
// fixed-width whatever the names. The record carries both the name and the
// id: a store given the UID table (dao.WithUIDs) sets the id from the name
// before it encodes a key, and the name from the id after it decodes a row,
// so records are written and read back with their names.
//
// Build the key segment with Field and put it in Spec.Key; declare the UID
// in Spec.UIDs. Changing Width is a data migration.
type UID[T any] struct {
	// Segment names the key segment holding the id.
	Segment string
	// Kind is the kind of name in the UID table, such as "host".
	Kind string
	// Width is the id's width in bytes, 1 to MaxUIDWidth; the UID table's
	// width for Kind must be the same.
	Width int
	// Name and SetName read and write the name in the record.
	Name    func(*T) string
	SetName func(*T, string)
	// ID and SetID read and write the id in the record.
	ID    func(*T) uint64
	SetID func(*T, uint64)
}

// Field returns the key segment of u: the id, big-endian in Width bytes
// (AppendUID), ascending by id (Kind keys.KindCustom, Codec "uid"). Ids are
// handed out in the order names are first seen, so the order of ids is not
// the order of names.
func (u UID[T]) Field() keys.Field[T] {
	return keys.Custom(u.Segment, UIDCodec(u.Width), u.ID, u.SetID)
}

// UIDCodec is the key codec of ids of width bytes (AppendUID, DecodeUID).
func UIDCodec(width int) keys.Codec[uint64] {
	return keys.Codec[uint64]{
		Name:   "uid",
		Width:  width,
		Order:  keys.Ascending,
		Append: func(dst []byte, id uint64) ([]byte, error) { return AppendUID(dst, id, width) },
		Decode: func(b []byte) (uint64, []byte, error) { return DecodeUID(b, width) },
	}
}

// ErrUIDWidth reports an id that does not fit its width, a width outside 1
// to MaxUIDWidth, or an encoded id of another width.
var ErrUIDWidth = errors.New("schema: id does not fit its width")

// MaxUID returns the largest id of width bytes (0 for a width outside 1 to
// MaxUIDWidth).
func MaxUID(width int) uint64 {
	if width < 1 || width > MaxUIDWidth {
		return 0
	}
	return ^uint64(0) >> (64 - 8*width)
}

// AppendUID appends id big-endian in width bytes. Id 0 is never assigned;
// an id wider than width, or a width outside 1 to MaxUIDWidth, is an error
// wrapping ErrUIDWidth and dst is returned unchanged.
func AppendUID(dst []byte, id uint64, width int) ([]byte, error) {
	if width < 1 || width > MaxUIDWidth {
		return dst, errors.Join(ErrUIDWidth, errors.New("width "+strconv.Itoa(width)+" outside 1.."+strconv.Itoa(MaxUIDWidth)))
	}
	if id > MaxUID(width) {
		return dst, errors.Join(ErrUIDWidth, errors.New("id needs more than "+strconv.Itoa(width)+" bytes"))
	}
	for i := width - 1; i >= 0; i-- {
		dst = append(dst, byte(id>>(8*i)))
	}
	return dst, nil
}

// DecodeUID reads an id of width bytes from the front of b and returns the
// rest, a suffix of b.
func DecodeUID(b []byte, width int) (id uint64, rest []byte, err error) {
	if width < 1 || width > MaxUIDWidth {
		return 0, b, errors.Join(ErrUIDWidth, errors.New("width "+strconv.Itoa(width)+" outside 1.."+strconv.Itoa(MaxUIDWidth)))
	}
	if len(b) < width {
		return 0, b, errors.Join(ErrUIDWidth, errors.New("need "+strconv.Itoa(width)+" bytes, have "+strconv.Itoa(len(b))))
	}
	for _, c := range b[:width] {
		id = id<<8 | uint64(c)
	}
	return id, b[width:], nil
}

// ValidUIDKind reports whether kind can name a kind of a UID table: 1 to 64
// bytes of lowercase letters, digits, '_', '-' and '.'.
func ValidUIDKind(kind string) bool {
	if kind == "" || len(kind) > 64 {
		return false
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// validateUIDs checks the UID declarations of a table against its key.
func validateUIDs[T any](key *keys.Layout[T], uids []UID[T]) error {
	segs := key.Segments()
	seen := make(map[string]bool)
	for i, u := range uids {
		field := u.Segment
		if field == "" {
			field = "uid " + strconv.Itoa(i)
		}
		bad := func(reason string) error {
			return &Error{Field: field, Reason: reason, Kind: ErrInvalidTable}
		}
		switch {
		case u.Segment == "":
			return bad("UID names no key segment")
		case seen[u.Segment]:
			return bad("two UIDs for one key segment")
		case !ValidUIDKind(u.Kind):
			return bad("UID kind must be 1 to 64 of a-z, 0-9, '_', '-', '.'")
		case u.Width < 1 || u.Width > MaxUIDWidth:
			return bad("UID width must be 1 to " + strconv.Itoa(MaxUIDWidth) + " bytes")
		case u.Name == nil || u.SetName == nil || u.ID == nil || u.SetID == nil:
			return bad("UID needs Name, SetName, ID and SetID")
		}
		seen[u.Segment] = true
		at := slices.IndexFunc(segs, func(s keys.Segment) bool { return s.Name == u.Segment })
		if at < 0 {
			return bad("no key segment of that name")
		}
		if s := segs[at]; s.Kind != keys.KindCustom || s.Codec != "uid" || s.Width != u.Width || !s.Decodable {
			return bad("key segment is not the UID's Field (a decodable uid codec of width " + strconv.Itoa(u.Width) + ")")
		}
	}
	return nil
}

// UIDs returns the table's UID declarations (Spec.UIDs), in declaration
// order.
func (t *Table[T]) UIDs() []UID[T] { return slices.Clone(t.uids) }
