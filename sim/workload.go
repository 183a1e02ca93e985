package sim

import (
	"iter"
	"time"

	"github.com/hbkit/hbkit/schema"
)

// Write is one row written to the table: its encoded row key, the time of
// the record (Unix milliseconds) and its size in bytes as HBase would hold
// it in the memstore (see RowSize).
//
// Key aliases a buffer the source reuses: it is valid only until the
// iteration continues. Copy it to keep it.
type Write struct {
	Key  []byte
	At   int64
	Size int
}

// Source is a stream of writes to one table, in write order (ordered by
// record time for the generators of this package), together with what the
// simulator needs to know about the table: its pre-split keys and the time
// window the writes cover.
type Source interface {
	// Table names the table the writes go to.
	Table() string
	// Splits returns the table's own split keys, ascending; none for a
	// table created with one region.
	Splits() [][]byte
	// Window returns the time range [from, to) the writes fall in.
	Window() (from, to time.Time)
	// Len returns the number of writes.
	Len() int64
	// Writes iterates over the writes. Each call starts again from the
	// first write and yields the same sequence. An error ends the
	// iteration.
	Writes() iter.Seq2[Write, error]
}

// Generator produces records of type T deterministically: every call of
// Records yields the same sequence. The seeds' generators (package
// seeds/seedsim: SMSWorkload, UserWorkload, LogWorkload ...) implement it
// with Config's helpers (WithDefaults, Clock, Picker, NewRand), so that a load generator (such as the SMS demo) can write
// exactly the records the simulator predicted.
type Generator[T any] interface {
	// Len returns the number of records.
	Len() int64
	// Window returns the time range [from, to) of the records.
	Window() (from, to time.Time)
	// Records iterates over the records. The *T is reused: it is valid
	// only until the iteration continues.
	Records() iter.Seq[*T]
}

// tableSource adapts a typed table (or one of its indexes) and a generator.
type tableSource[T any] struct {
	name   string
	splits [][]byte
	gen    Generator[T]
	at     func(*T) int64
	encode func(r *schema.Row, v *T) error
}

// FromTable returns the writes of gen's records to table t: each record's
// row key (encoded with t's layout into a reused buffer, so the stream
// allocates nothing per record beyond what the generator does), its time
// as given by at (Unix ms), and its size (RowSize of the encoded row).
func FromTable[T any](t *schema.Table[T], gen Generator[T], at func(*T) int64) Source {
	return &tableSource[T]{name: t.Name().String(), splits: t.SplitKeys(), gen: gen, at: at, encode: t.EncodeRow}
}

// FromIndex returns the writes of gen's records to index table ix: one
// index entry per record.
func FromIndex[T any](ix *schema.Index[T], gen Generator[T], at func(*T) int64) Source {
	return &tableSource[T]{name: ix.Name().String(), splits: ix.SplitKeys(), gen: gen, at: at, encode: ix.EncodeEntry}
}

func (s *tableSource[T]) Table() string                { return s.name }
func (s *tableSource[T]) Splits() [][]byte             { return cloneKeys(s.splits) }
func (s *tableSource[T]) Window() (from, to time.Time) { return s.gen.Window() }
func (s *tableSource[T]) Len() int64                   { return s.gen.Len() }

func (s *tableSource[T]) Writes() iter.Seq2[Write, error] {
	return func(yield func(Write, error) bool) {
		var row schema.Row
		for rec := range s.gen.Records() {
			if err := s.encode(&row, rec); err != nil {
				yield(Write{}, err)
				return
			}
			if !yield(Write{Key: row.Key, At: s.at(rec), Size: RowSize(&row)}, nil) {
				return
			}
		}
	}
}

// CellOverhead is the overhead per cell in HBase's KeyValue format: key length (4),
// value length (4), row length (2), family length (1), timestamp (8) and
// type (1).
const CellOverhead = 4 + 4 + 2 + 1 + 8 + 1

// RowSize returns the bytes the row takes as HBase KeyValues, uncompressed:
// per cell the row key, family, qualifier, value and 20 bytes of lengths,
// timestamp and type. A row without cells counts as one empty cell. This
// is what grows a memstore and, before compression, a region.
func RowSize(r *schema.Row) int {
	if len(r.Cells) == 0 {
		return CellOverhead + len(r.Key)
	}
	n := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		n += CellOverhead + len(r.Key) + len(c.Family) + len(c.Qualifier) + len(c.Value)
	}
	return n
}

func cloneKeys(ks [][]byte) [][]byte {
	out := make([][]byte, len(ks))
	for i, k := range ks {
		out[i] = append([]byte(nil), k...)
	}
	return out
}
