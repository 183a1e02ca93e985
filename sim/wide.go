package sim

import (
	"iter"
	"time"

	"github.com/hbkit/hbkit/schema"
)

// FromLogWide returns the writes of gen's events to the wide table
// schema.LogDataWide: one cell per event, keyed by its row (host bucket,
// host id, event id, five-minute range). The ids are what a fresh LOG_TYPES
// table would hand out: 1, 2, … per kind in the order names are first
// seen, so the simulation needs no UID table.
func FromLogWide(t *schema.WideTable[schema.UIDLogEvent], gen Generator[schema.LogEvent]) Source {
	return &wideSource{t: t, gen: gen}
}

type wideSource struct {
	t   *schema.WideTable[schema.UIDLogEvent]
	gen Generator[schema.LogEvent]
}

func (s *wideSource) Table() string                { return s.t.Name().String() }
func (s *wideSource) Splits() [][]byte             { return s.t.SplitKeys() }
func (s *wideSource) Window() (from, to time.Time) { return s.gen.Window() }
func (s *wideSource) Len() int64                   { return s.gen.Len() }

func (s *wideSource) Writes() iter.Seq2[Write, error] {
	return func(yield func(Write, error) bool) {
		hosts, events := map[string]uint64{}, map[string]uint64{}
		id := func(ids map[string]uint64, name string) uint64 {
			v, ok := ids[name]
			if !ok {
				v = uint64(len(ids) + 1)
				ids[name] = v
			}
			return v
		}
		var c schema.WideCell
		family := len(s.t.Family())
		for e := range s.gen.Records() {
			rec := schema.UIDLogEvent{LogEvent: *e, HostID: id(hosts, e.Host), EventID: id(events, e.Event)}
			if err := s.t.EncodeCell(&c, &rec); err != nil {
				yield(Write{}, err)
				return
			}
			size := cellOverhead + len(c.Row) + family + len(c.Qualifier) + len(c.Value)
			if !yield(Write{Key: c.Row, At: e.At.UnixMilli(), Size: size}, nil) {
				return
			}
		}
	}
}
