package sim

import (
	"iter"
	"time"
)

// keysSource is a Source over keys held in memory, such as a sample file.
type keysSource struct {
	table    string
	splits   [][]byte
	keys     [][]byte
	at       []int64
	from, to int64
}

// FromKeys returns a Source over keys written in the given order. at holds
// each key's record time in Unix ms; if it is nil, key i is written at
// time i (ms after the epoch), so time slices follow the order of the keys,
// and the report says so (Report.Ordinal).
// Sizes are those of empty cells (RowSize of the key alone).
func FromKeys(table string, splits [][]byte, keyList [][]byte, at []int64) (Source, error) {
	if at != nil && len(at) != len(keyList) {
		return nil, configErr("keys", "%d keys but %d times", len(keyList), len(at))
	}
	if len(keyList) == 0 {
		return nil, configErr("keys", "no keys")
	}
	s := &keysSource{table: table, splits: cloneKeys(splits), keys: keyList, at: at}
	if at == nil {
		s.from, s.to = 0, int64(len(keyList))
	} else {
		s.from, s.to = at[0], at[0]
		for _, t := range at {
			s.from = min(s.from, t)
			s.to = max(s.to, t)
		}
		s.to++
	}
	return s, nil
}

// Ordinal reports that times are write numbers, not record times.
func (s *keysSource) Ordinal() bool { return s.at == nil }

func (s *keysSource) Table() string    { return s.table }
func (s *keysSource) Splits() [][]byte { return cloneKeys(s.splits) }
func (s *keysSource) Len() int64       { return int64(len(s.keys)) }
func (s *keysSource) Window() (from, to time.Time) {
	return time.UnixMilli(s.from).UTC(), time.UnixMilli(s.to).UTC()
}

func (s *keysSource) Writes() iter.Seq2[Write, error] {
	return func(yield func(Write, error) bool) {
		for i, k := range s.keys {
			at := int64(i)
			if s.at != nil {
				at = s.at[i]
			}
			if !yield(Write{Key: k, At: at, Size: CellOverhead + len(k)}, nil) {
				return
			}
		}
	}
}
