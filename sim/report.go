package sim

import (
	"bytes"
	"strconv"
	"time"
)

// Key is a row key in a report. It marshals to text in the form of HBase's
// Bytes.toStringBinary: printable ASCII as is, other bytes as \xHH.
type Key []byte

// String returns the key as Bytes.toStringBinary writes it; the empty key
// (the start or end of the table) is "".
func (k Key) String() string {
	var b []byte
	for _, c := range k {
		if c >= 0x20 && c < 0x7f && c != '\\' {
			b = append(b, c)
			continue
		}
		b = append(b, '\\', 'x', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&0xf])
	}
	return string(b)
}

// MarshalText returns the String form.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses the String form (see ParseKey).
func (k *Key) UnmarshalText(text []byte) error {
	v, err := ParseKey(string(text))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// ParseKey reverses Key.String (and HBase's Bytes.toStringBinary): \xHH is
// one byte, any other character stands for itself. A malformed escape is a
// *ConfigError.
func ParseKey(s string) (Key, error) {
	out := make(Key, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			hi, ok1 := unhex(s[i+2])
			lo, ok2 := unhex(s[i+3])
			if !ok1 || !ok2 {
				return nil, configErr("key", "bad escape %q in %q", s[i:i+4], s)
			}
			out = append(out, hi<<4|lo)
			i += 3
			continue
		}
		out = append(out, s[i])
	}
	return out, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Region is one region of a report: its key range and what it holds.
type Region struct {
	Index int     `json:"index"`
	Start Key     `json:"start"` // inclusive; empty for the first region
	End   Key     `json:"end"`   // exclusive; empty for the last region
	Rows  int64   `json:"rows"`
	Bytes int64   `json:"bytes,omitempty"` // RowSize of its rows; 0 when not known
	Share float64 `json:"share"`           // Rows / total rows
	// Server is the region server hosting the region: "rs1" ... in a
	// simulation, host:port when measured.
	Server string `json:"server,omitempty"`
	// Flushes is the number of memstore flushes emulated.
	Flushes int64 `json:"flushes,omitempty"`
	// ReadRequests and WriteRequests are HBase's request counters of the
	// region, when measured and the client reports them.
	ReadRequests  int64 `json:"read_requests,omitempty"`
	WriteRequests int64 `json:"write_requests,omitempty"`
}

// Skew summarises how even a distribution is.
type Skew struct {
	Max         int     `json:"max"`           // index of the fullest region (or server)
	Min         int     `json:"min"`           // index of the emptiest one
	MaxOverMean float64 `json:"max_over_mean"` // 1 is perfectly even
	MinOverMean float64 `json:"min_over_mean"`
}

// Slice is one time slice: which regions took the writes made in it.
type Slice struct {
	From time.Time `json:"from"` // the slice's bounds in the window
	To   time.Time `json:"to"`
	Rows int64     `json:"rows"`
	// Regions holds the writes per region (of Report.Regions).
	Regions []int64 `json:"regions"`
	// Hot is the region that took most writes and HotShare its share of
	// the slice's writes.
	Hot      int     `json:"hot"`
	HotShare float64 `json:"hot_share"`
	// Active counts the regions that took at least 1% of the slice's
	// writes.
	Active int `json:"active"`
	// Servers holds the writes per server (regions assigned round-robin).
	Servers []int64 `json:"servers"`
}

// SplitEvent is one emulated region split.
type SplitEvent struct {
	Write  int64 `json:"write"` // number of writes made before the split
	At     int64 `json:"at"`    // record time (Unix ms) of the write that triggered it
	Start  Key   `json:"start"` // the parent region
	End    Key   `json:"end"`
	Key    Key   `json:"key"`   // the split point, the right daughter's start
	Rows   int64 `json:"rows"`  // the parent's rows and bytes when it split
	Bytes  int64 `json:"bytes"` //
	Before int   `json:"regions_before"`
}

// Server is the load of one region server.
type Server struct {
	Name    string  `json:"name"`
	Regions int     `json:"regions"`
	Rows    int64   `json:"rows"`
	Bytes   int64   `json:"bytes,omitempty"`
	Share   float64 `json:"share"`
}

// Report is the outcome of a simulation, or of a measurement of a real
// table: rows and share per region, skew, time slices, splits and the load
// per region server.
type Report struct {
	Table string `json:"table"`
	// Measured is true for a report measured on a live table.
	Measured bool  `json:"measured"`
	Rows     int64 `json:"rows"`
	Bytes    int64 `json:"bytes,omitempty"`
	// First and Last are the earliest and latest record times written
	// (zero when measured).
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// Regions are the table's regions as pre-split (simulated) or as they
	// are (measured).
	Regions []Region `json:"regions"`
	Skew    Skew     `json:"skew"`
	// Slices are the time slices; empty when the analysis was off.
	Slices []Slice `json:"slices,omitempty"`
	// Ordinal is true when the source had no record times and writes were
	// timed by their order: Slice.From and To then hold write numbers as
	// Unix ms.
	Ordinal bool `json:"ordinal,omitempty"`
	// SplitSize and SplitRows are the thresholds of the split emulation
	// (0 when off); Splits lists the splits in order and Final the
	// regions at the end.
	SplitSize int64 `json:"split_size,omitempty"`
	SplitRows int64 `json:"split_rows,omitempty"`
	// SplitPolicy is "stepping" for WithSteppingSplit (then regions alone
	// on their server split past twice FlushSize), empty for a constant
	// size.
	SplitPolicy string       `json:"split_policy,omitempty"`
	FlushSize   int64        `json:"flush_size,omitempty"`
	Splits      []SplitEvent `json:"splits,omitempty"`
	Final       []Region     `json:"final,omitempty"`
	Flushes     int64        `json:"flushes,omitempty"`
	// Servers is the load per region server: Final (or Regions) assigned
	// round-robin in key order when simulated, as hosted when measured.
	Servers    []Server `json:"servers"`
	ServerSkew Skew     `json:"server_skew"`
	// Elapsed is how long the simulation or measurement took.
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
}

// Report returns the statistics of the writes added so far.
func (s *Simulator) Report() *Report {
	r := &Report{Rows: s.n, Bytes: s.size, SplitSize: s.o.splitSize, SplitRows: s.o.splitRows}
	if s.n > 0 {
		r.First, r.Last = time.UnixMilli(s.minAt).UTC(), time.UnixMilli(s.maxAt).UTC()
	}
	if s.o.stepping {
		r.SplitPolicy = "stepping"
		r.FlushSize = s.o.flushSize
		if r.SplitSize == 0 {
			r.SplitSize = HBaseMaxFileSize
		}
	}
	r.Regions = make([]Region, len(s.rows))
	for i := range r.Regions {
		g := Region{Index: i, Rows: s.rows[i], Bytes: s.bytes[i]}
		if i > 0 {
			g.Start = Key(bytes.Clone(s.splits[i-1]))
		}
		if i < len(s.splits) {
			g.End = Key(bytes.Clone(s.splits[i]))
		}
		r.Regions[i] = g
	}
	r.Skew = FillShares(r.Regions)

	final := r.Regions
	if s.emulate {
		final = make([]Region, len(s.dyn))
		for i, d := range s.dyn {
			g := Region{Index: i, Start: Key(bytes.Clone(d.start)), Rows: d.rows, Bytes: d.bytes, Flushes: d.flushes}
			if i+1 < len(s.dyn) {
				g.End = Key(bytes.Clone(s.dyn[i+1].start))
			}
			r.Flushes += d.flushes
			final[i] = g
		}
		FillShares(final)
		if !s.splitting {
			// Same regions: report the flushes on the pre-split ones.
			for i := range r.Regions {
				r.Regions[i].Flushes = final[i].Flushes
			}
		}
		r.Splits = append([]SplitEvent(nil), s.events...)
		if s.splitting {
			r.Final = final
		}
	}
	k := s.o.servers
	for i := range final {
		final[i].Server = serverName(i % k)
	}
	if s.emulate {
		for i := range r.Regions {
			// Pre-split regions are assigned round-robin too.
			r.Regions[i].Server = serverName(i % k)
		}
	}
	r.Servers, r.ServerSkew = ServerLoad(final)
	if len(r.Servers) < k {
		for i := len(r.Servers); i < k; i++ {
			r.Servers = append(r.Servers, Server{Name: serverName(i)})
		}
		r.ServerSkew = serverSkew(r.Servers)
	}

	if s.o.slices > 0 {
		n := len(s.rows)
		span := s.o.to - s.o.from
		for k := 0; k < s.o.slices; k++ {
			sl := Slice{
				From:    time.UnixMilli(s.o.from + mulDiv(int64(k), span, int64(s.o.slices))).UTC(),
				To:      time.UnixMilli(s.o.from + mulDiv(int64(k+1), span, int64(s.o.slices))).UTC(),
				Regions: append([]int64(nil), s.sliceRows[k*n:(k+1)*n]...),
				Servers: make([]int64, s.o.servers),
			}
			for i, c := range sl.Regions {
				sl.Rows += c
				sl.Servers[i%s.o.servers] += c
				if c > sl.Regions[sl.Hot] {
					sl.Hot = i
				}
			}
			if sl.Rows > 0 {
				sl.HotShare = float64(sl.Regions[sl.Hot]) / float64(sl.Rows)
				for _, c := range sl.Regions {
					if c*100 >= sl.Rows {
						sl.Active++
					}
				}
			}
			r.Slices = append(r.Slices, sl)
		}
	}
	return r
}

func serverName(i int) string { return "rs" + strconv.Itoa(i+1) }

// FillShares sets each region's Share of the total rows and returns the
// skew of the rows.
func FillShares(rs []Region) Skew {
	var total int64
	for _, g := range rs {
		total += g.Rows
	}
	var sk Skew
	for i := range rs {
		if total > 0 {
			rs[i].Share = float64(rs[i].Rows) / float64(total)
		}
		if rs[i].Rows > rs[sk.Max].Rows {
			sk.Max = i
		}
		if rs[i].Rows < rs[sk.Min].Rows {
			sk.Min = i
		}
	}
	if total > 0 && len(rs) > 0 {
		mean := float64(total) / float64(len(rs))
		sk.MaxOverMean = float64(rs[sk.Max].Rows) / mean
		sk.MinOverMean = float64(rs[sk.Min].Rows) / mean
	}
	return sk
}

// ServerLoad sums regions per Server, in order of first appearance, and
// returns the load per server and its skew.
func ServerLoad(rs []Region) ([]Server, Skew) {
	var out []Server
	at := make(map[string]int)
	var total int64
	for _, g := range rs {
		i, ok := at[g.Server]
		if !ok {
			i = len(out)
			at[g.Server] = i
			out = append(out, Server{Name: g.Server})
		}
		out[i].Regions++
		out[i].Rows += g.Rows
		out[i].Bytes += g.Bytes
		total += g.Rows
	}
	for i := range out {
		if total > 0 {
			out[i].Share = float64(out[i].Rows) / float64(total)
		}
	}
	return out, serverSkew(out)
}

func serverSkew(ss []Server) Skew {
	rs := make([]Region, len(ss))
	for i, s := range ss {
		rs[i].Rows = s.Rows
	}
	return FillShares(rs)
}
