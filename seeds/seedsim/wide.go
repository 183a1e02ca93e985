package seedsim

import (
	"iter"
	"time"

	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/sim"
)

// FromLogWide returns the writes of gen's events to the wide table
// seeds.LogDataWide: one cell per event, keyed by its row (host bucket,
// host id, event id, five-minute range). The ids are what a fresh LOG_TYPES
// table would hand out: 1, 2, … per kind in the order names are first
// seen, so the simulation needs no UID table.
func FromLogWide(t *schema.WideTable[seeds.UIDLogEvent], gen sim.Generator[seeds.LogEvent]) sim.Source {
	return &wideSource{t: t, gen: gen}
}

type wideSource struct {
	t   *schema.WideTable[seeds.UIDLogEvent]
	gen sim.Generator[seeds.LogEvent]
}

func (s *wideSource) Table() string                { return s.t.Name().String() }
func (s *wideSource) Splits() [][]byte             { return s.t.SplitKeys() }
func (s *wideSource) Window() (from, to time.Time) { return s.gen.Window() }
func (s *wideSource) Len() int64                   { return s.gen.Len() }

func (s *wideSource) Writes() iter.Seq2[sim.Write, error] {
	return func(yield func(sim.Write, error) bool) {
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
			rec := seeds.UIDLogEvent{LogEvent: *e, HostID: id(hosts, e.Host), EventID: id(events, e.Event)}
			if err := s.t.EncodeCell(&c, &rec); err != nil {
				yield(sim.Write{}, err)
				return
			}
			size := sim.CellOverhead + len(c.Row) + family + len(c.Qualifier) + len(c.Value)
			if !yield(sim.Write{Key: c.Row, At: e.At.UnixMilli(), Size: size}, nil) {
				return
			}
		}
	}
}
