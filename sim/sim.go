package sim

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// Defaults of the simulator's options.
const (
	// DefaultSlices is the number of time slices.
	DefaultSlices = 10
	// DefaultFlushSize is HBase's hbase.hregion.memstore.flush.size, 128 MiB.
	DefaultFlushSize = 128 << 20
	// DefaultSampleKeys is the number of keys each region keeps to find its
	// midpoint when it splits.
	DefaultSampleKeys = 256
	// HBaseMaxFileSize is HBase's hbase.hregion.max.filesize, 10 GiB: the
	// size at which a region splits once its table has grown.
	HBaseMaxFileSize = 10 << 30
)

// Option configures a Simulator.
type Option func(*options)

type options struct {
	splits     [][]byte
	haveSplits bool
	servers    int
	slices     int
	from, to   int64
	haveWindow bool
	splitSize  int64
	splitRows  int64
	stepping   bool
	flushSize  int64
	sampleKeys int
	seed       uint64
}

// WithSplits sets the pre-split keys of the table (ascending, non-empty,
// distinct), overriding the source's own (Simulate). No keys means one
// region.
func WithSplits(splits [][]byte) Option {
	return func(o *options) { o.splits, o.haveSplits = cloneKeys(splits), true }
}

// WithServers sets the number of region servers the regions are spread
// over, round-robin in key order (what HBase's simple balancer converges to:
// equal region counts per server). The default is 1.
func WithServers(k int) Option { return func(o *options) { o.servers = k } }

// WithSlices sets the number of time slices the window is cut into
// (DefaultSlices); 0 turns the time analysis off.
func WithSlices(n int) Option { return func(o *options) { o.slices = n } }

// WithWindow sets the time window the slices cut, overriding the source's.
// Writes outside it count in the first or last slice.
func WithWindow(from, to time.Time) Option {
	return func(o *options) { o.from, o.to, o.haveWindow = from.UnixMilli(), to.UnixMilli(), true }
}

// WithSplitSize turns on split emulation: a region splits at its midpoint
// key when it holds more than bytes (RowSize of its rows). 0, the default,
// turns it off unless WithSplitRows is set.
func WithSplitSize(bytes int64) Option { return func(o *options) { o.splitSize = bytes } }

// WithSplitRows turns on split emulation by row count: a region splits at
// its midpoint key when it holds more than rows rows.
func WithSplitRows(rows int64) Option { return func(o *options) { o.splitRows = rows } }

// WithSteppingSplit turns on split emulation with HBase 2's default
// policy (SteppingSplitPolicy): a region splits past twice the flush size
// (WithFlushSize, 256 MiB by default) while it is its table's only region
// on its server, and past the split size (WithSplitSize, or
// HBaseMaxFileSize when that is 0) once its server holds more of the
// table's regions. Servers are counted with the round-robin assignment of
// WithServers, as if the balancer ran after every split: with K servers
// the first 2K-1 splits are early ones.
func WithSteppingSplit() Option { return func(o *options) { o.stepping = true } }

// WithFlushSize sets the memstore flush size used to count flushes per
// region (DefaultFlushSize); 0 turns the count off.
func WithFlushSize(bytes int64) Option { return func(o *options) { o.flushSize = bytes } }

// WithSampleKeys sets how many keys each region samples to find its
// midpoint (DefaultSampleKeys).
func WithSampleKeys(n int) Option { return func(o *options) { o.sampleKeys = n } }

// WithSeed seeds the sampling of midpoint keys.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

func (o *options) validate() error {
	switch {
	case o.servers < 1:
		return configErr("servers", "need at least 1 server, have %d", o.servers)
	case o.servers > 100_000:
		return configErr("servers", "%d servers is too many", o.servers)
	case o.slices < 0 || o.slices > 10_000:
		return configErr("slices", "%d is outside [0, 10000]", o.slices)
	case o.haveWindow && o.to <= o.from:
		return configErr("window", "end is not after start")
	case o.splitSize < 0:
		return configErr("split size", "negative size %d", o.splitSize)
	case o.splitRows < 0:
		return configErr("split rows", "negative count %d", o.splitRows)
	case o.flushSize < 0:
		return configErr("flush size", "negative size %d", o.flushSize)
	case o.stepping && o.flushSize == 0:
		return configErr("flush size", "the stepping split policy needs a flush size")
	case o.sampleKeys < 2 || o.sampleKeys > 1_000_000:
		return configErr("sample keys", "%d is outside [2, 1000000]", o.sampleKeys)
	case len(o.splits) > 1_000_000:
		return configErr("splits", "%d split keys is too many", len(o.splits))
	}
	if err := keys.ValidateSplits(o.splits); err != nil {
		return &ConfigError{Field: "splits", Reason: err.Error()}
	}
	return nil
}

// Simulator assigns writes to regions and keeps the statistics of a
// Report. Feed it with Add, in write order, then call Report. A Simulator
// is not safe for concurrent use.
type Simulator struct {
	o      options
	splits [][]byte

	n, size      int64
	minAt, maxAt int64
	rows, bytes  []int64 // per pre-split region
	sliceRows    []int64 // slice*len(rows) + region

	emulate   bool
	splitting bool
	dyn       []*region // current regions, by start key
	events    []SplitEvent
	scratch   [][]byte
}

// region is a region of the split emulation.
type region struct {
	start   []byte // nil for the first region
	rows    int64
	bytes   int64
	mem     int64 // memstore bytes since the last flush
	flushes int64
	sample  keySample // uniform sample of the region's keys, for the midpoint
	retry   int64     // do not try to split again before this many bytes
}

// New returns a Simulator for a table pre-split at the WithSplits keys.
func New(opts ...Option) (*Simulator, error) {
	o := options{servers: 1, slices: DefaultSlices, flushSize: DefaultFlushSize, sampleKeys: DefaultSampleKeys}
	for _, f := range opts {
		f(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.slices > 0 && !o.haveWindow {
		return nil, configErr("window", "time slices need a window (WithWindow)")
	}
	n := len(o.splits) + 1
	s := &Simulator{
		o:      o,
		splits: o.splits,
		rows:   make([]int64, n),
		bytes:  make([]int64, n),
		minAt:  1<<63 - 1,
		maxAt:  -1 << 63,
	}
	if o.slices > 0 {
		s.sliceRows = make([]int64, o.slices*n)
	}
	s.splitting = o.splitSize > 0 || o.splitRows > 0 || o.stepping
	s.emulate = s.splitting || o.flushSize > 0
	if s.emulate {
		s.dyn = make([]*region, n)
		for i := range s.dyn {
			s.dyn[i] = &region{}
			if i > 0 {
				s.dyn[i].start = o.splits[i-1]
			}
		}
	}
	return s, nil
}

// Simulate runs the writes of src through a new Simulator and returns its
// report. The table's split keys and time window are the source's unless
// WithSplits or WithWindow say otherwise. It checks ctx every 65,536
// writes.
func Simulate(ctx context.Context, src Source, opts ...Option) (*Report, error) {
	from, to := src.Window()
	base := []Option{WithSplits(src.Splits())}
	if to.After(from) {
		base = append(base, WithWindow(from, to))
	}
	s, err := New(append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	var i int64
	for w, err := range src.Writes() {
		if err != nil {
			return nil, err
		}
		if i&0xFFFF == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		i++
		s.Add(w)
	}
	r := s.Report()
	r.Table = src.Table()
	if o, ok := src.(interface{ Ordinal() bool }); ok && o.Ordinal() {
		r.Ordinal = true
	}
	return r, nil
}

// regionOf returns the index of the region of key among regions cut at
// splits: the number of split keys <= key.
func regionOf(splits [][]byte, key []byte) int {
	lo, hi := 0, len(splits)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(splits[m], key) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// dynOf returns the index of the emulated region holding key.
func (s *Simulator) dynOf(key []byte) int {
	lo, hi := 1, len(s.dyn) // region 0 holds every key below region 1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(s.dyn[m].start, key) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// Add records one write. The key is not retained (sampled keys are
// copied).
func (s *Simulator) Add(w Write) {
	i := regionOf(s.splits, w.Key)
	s.rows[i]++
	s.bytes[i] += int64(w.Size)
	s.n++
	s.size += int64(w.Size)
	s.minAt = min(s.minAt, w.At)
	s.maxAt = max(s.maxAt, w.At)
	if s.o.slices > 0 {
		s.sliceRows[s.sliceOf(w.At)*len(s.rows)+i]++
	}
	if s.emulate {
		s.grow(w)
	}
}

func (s *Simulator) sliceOf(at int64) int {
	if at <= s.o.from {
		return 0
	}
	if at >= s.o.to {
		return s.o.slices - 1
	}
	return int(mulDiv(at-s.o.from, int64(s.o.slices), s.o.to-s.o.from))
}

// grow adds w to its emulated region, counts a flush when the memstore is
// full and splits the region when it has grown past the threshold.
func (s *Simulator) grow(w Write) {
	i := s.dynOf(w.Key)
	d := s.dyn[i]
	d.rows++
	d.bytes += int64(w.Size)
	if s.o.flushSize > 0 {
		d.mem += int64(w.Size)
		if d.mem >= s.o.flushSize {
			d.flushes++
			d.mem = 0
		}
	}
	if !s.splitting {
		return
	}
	d.sample.add(hashKey(s.o.seed, w.Key), w.Key, s.o.sampleKeys)
	if d.bytes < d.retry {
		return
	}
	limit := s.o.splitSize
	if s.o.stepping {
		if s.regionsOnServer(i) == 1 {
			limit = 2 * s.o.flushSize
		} else if limit == 0 {
			limit = HBaseMaxFileSize
		}
	}
	if (limit > 0 && d.bytes > limit) || (s.o.splitRows > 0 && d.rows > s.o.splitRows) {
		s.split(i, w)
	}
}

// regionsOnServer returns how many of the current regions share the server
// of region i, with regions assigned round-robin in key order.
func (s *Simulator) regionsOnServer(i int) int {
	k := s.o.servers
	return (len(s.dyn)-1-i%k)/k + 1
}

// split cuts region i at the median of its sample, as HBase cuts a region
// at the midpoint of its largest store file. The daughters share the
// parent's rows and bytes in the proportion of the sample on each side and
// start with empty memstores (HBase flushes before it splits).
func (s *Simulator) split(i int, w Write) {
	d := s.dyn[i]
	s.scratch = s.scratch[:0]
	for _, e := range d.sample.entries {
		s.scratch = append(s.scratch, e.key)
	}
	slices.SortFunc(s.scratch, bytes.Compare)
	m := len(s.scratch) / 2
	// The split key must leave both daughters non-empty: above the
	// region's start and above the smallest sampled key.
	for m < len(s.scratch) && (bytes.Compare(s.scratch[m], s.scratch[0]) <= 0 ||
		(d.start != nil && bytes.Compare(s.scratch[m], d.start) <= 0)) {
		m++
	}
	if m == len(s.scratch) {
		// A single hot key cannot be split; wait until the region doubles.
		d.retry = 2 * d.bytes
		return
	}
	mid := append([]byte(nil), s.scratch[m]...)
	left := &region{start: d.start}
	right := &region{start: mid}
	left.sample = keySample{tau: d.sample.tau, bounded: d.sample.bounded}
	right.sample = keySample{tau: d.sample.tau, bounded: d.sample.bounded}
	for _, e := range d.sample.entries {
		if bytes.Compare(e.key, mid) < 0 {
			left.sample.entries = append(left.sample.entries, e)
		} else {
			right.sample.entries = append(right.sample.entries, e)
		}
	}
	left.sample.heapify()
	right.sample.heapify()
	f := float64(len(left.sample.entries)) / float64(len(d.sample.entries))
	left.rows = int64(float64(d.rows) * f)
	right.rows = d.rows - left.rows
	left.bytes = int64(float64(d.bytes) * f)
	right.bytes = d.bytes - left.bytes
	if d.mem > 0 {
		left.flushes++ // the flush before the split, counted once
	}
	left.flushes += d.flushes
	var end []byte
	if i+1 < len(s.dyn) {
		end = s.dyn[i+1].start
	}
	s.events = append(s.events, SplitEvent{
		Write:  s.n,
		At:     w.At,
		Start:  Key(d.start),
		End:    Key(end),
		Key:    Key(mid),
		Rows:   d.rows,
		Bytes:  d.bytes,
		Before: len(s.dyn),
	})
	s.dyn[i] = left
	s.dyn = slices.Insert(s.dyn, i+1, right)
}
