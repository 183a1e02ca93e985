package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// ErrInvalidConfig is wrapped by every configuration error of this package:
// a bad workload Config, simulator option or split specification.
var ErrInvalidConfig = errors.New("sim: invalid configuration")

// ConfigError reports an invalid setting.
type ConfigError struct {
	Field  string // the setting, such as "Records" or "servers"
	Reason string
}

func (e *ConfigError) Error() string { return "sim: " + e.Field + ": " + e.Reason }

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

func configErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// DefaultStart returns the window start used when Config.Start is zero,
// 2025-01-01 00:00 UTC.
func DefaultStart() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }

// Config describes a generated workload. The same Config and Seed always
// give the same records.
type Config struct {
	// Records is the number of records (rows) to generate, at least 1.
	Records int64
	// Entities is the number of distinct keys' owners: mobiles for SMS,
	// users, hosts for LOG_DATA, customers for orders. Zero picks the
	// workload's default (100,000 mobiles, 50 hosts, ...), capped at
	// Records where that makes sense.
	Entities int
	// Accounts is the number of SMS sending accounts; zero means 100.
	Accounts int
	// Days is the length of the time window in days; zero means 30.
	Days int
	// Start is the start of the time window; zero means DefaultStart.
	Start time.Time
	// Zipf, when above 1, makes some entities far busier than others: the
	// entity of each record is drawn from a Zipf distribution with this
	// exponent (1.1 is a heavy tail, 2 a few very busy ones) instead of
	// uniformly. Popularity is independent of the entity's key. Zero means
	// uniform.
	Zipf float64
	// Seed seeds the deterministic random source.
	Seed uint64
}

// WithDefaults checks c and returns a copy with defaults filled in;
// entities is the workload's default entity count. A generator calls it
// once, in its constructor.
func (c Config) WithDefaults(entities int) (Config, error) {
	switch {
	case c.Records < 1:
		return c, configErr("Records", "need at least 1 record, have %d", c.Records)
	case c.Entities < 0:
		return c, configErr("Entities", "negative count %d", c.Entities)
	case c.Accounts < 0:
		return c, configErr("Accounts", "negative count %d", c.Accounts)
	case c.Days < 0:
		return c, configErr("Days", "negative window %d", c.Days)
	case c.Zipf != 0 && !(c.Zipf > 1 && c.Zipf <= 100):
		return c, configErr("Zipf", "exponent %g: want 0 (uniform) or above 1", c.Zipf)
	case c.Days > 3650:
		return c, configErr("Days", "window of %d days is more than 10 years", c.Days)
	}
	if c.Entities == 0 {
		c.Entities = entities
	}
	if c.Accounts == 0 {
		c.Accounts = 100
	}
	if c.Days == 0 {
		c.Days = 30
	}
	if c.Start.IsZero() {
		c.Start = DefaultStart()
	}
	c.Start = c.Start.UTC().Truncate(time.Millisecond)
	return c, nil
}

// Window returns the time window of c's records.
func (c Config) Window() (from, to time.Time) {
	f, t := c.window()
	return time.UnixMilli(f).UTC(), time.UnixMilli(t).UTC()
}

// window returns the window's bounds in Unix ms.
func (c Config) window() (from, to int64) {
	from = c.Start.UnixMilli()
	return from, from + int64(c.Days)*24*3600*1000
}

// Clock spreads a workload's records over its window in order: record i
// falls in its own step of the window, so times never decrease.
type Clock struct {
	from, span, n int64
}

// Clock returns the clock of c's Records records over c's window.
func (c Config) Clock() Clock {
	from, to := c.window()
	return Clock{from: from, span: to - from, n: c.Records}
}

// Step returns the start of record i's step, in Unix ms.
func (k Clock) Step(i int64) int64 { return k.from + mulDiv(i, k.span, k.n) }

// At returns record i's time in Unix ms: a random offset from r inside
// its step.
func (k Clock) At(r *rand.Rand, i int64) int64 {
	lo, hi := k.Step(i), k.Step(i+1)
	if hi <= lo {
		return lo
	}
	return lo + r.Int64N(hi-lo)
}

// mulDiv returns a*b/c for non-negative values, without overflow for the
// sizes used here (a <= c).
func mulDiv(a, b, c int64) int64 {
	q, r := b/c, b%c
	return a*q + a*r/c
}

// Picker draws entity indexes in [0, n): uniformly, or from a Zipf
// distribution when the Config asks for one.
type Picker struct {
	r *rand.Rand
	z *rand.Zipf
	n int
}

// Picker returns the picker of n entities drawing from r.
func (c Config) Picker(r *rand.Rand, n int) Picker {
	p := Picker{r: r, n: n}
	if c.Zipf > 1 && n > 1 {
		p.z = rand.NewZipf(r, c.Zipf, 1, uint64(n-1))
	}
	return p
}

// Next returns the index of the next record's entity.
func (p Picker) Next() int {
	if p.z != nil {
		return int(p.z.Uint64())
	}
	return p.r.IntN(p.n)
}

// NewRand returns the deterministic random source of a workload; stream
// separates the sources of different generators with the same seed.
func NewRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^stream))
}
