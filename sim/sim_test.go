package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/sim"
)

func simulate(t *testing.T, name string, cfg sim.Config, opts ...sim.Option) *sim.Report {
	t.Helper()
	src, err := seedsim.Builtin(name, cfg)
	if err != nil {
		t.Fatalf("Builtin(%q): %v", name, err)
	}
	r, err := sim.Simulate(context.Background(), src, opts...)
	if err != nil {
		t.Fatalf("Simulate(%q): %v", name, err)
	}
	return r
}

// The seed SMS design, reversed mobile first and 20 regions '05'..'95',
// spreads messages evenly, and does so in every time slice.
func TestSMSDesignIsEven(t *testing.T) {
	r := simulate(t, seeds.SMSTableName, sim.Config{Records: 100_000, Seed: 7}, sim.WithSlices(10))
	if got := len(r.Regions); got != seeds.SMSRegions {
		t.Fatalf("got %d regions, want %d", got, seeds.SMSRegions)
	}
	if r.Rows != 100_000 {
		t.Errorf("got %d rows, want 100000", r.Rows)
	}
	if r.Skew.MaxOverMean >= 1.5 {
		t.Errorf("max/mean = %.3f, want < 1.5", r.Skew.MaxOverMean)
	}
	if r.Skew.MinOverMean < 0.5 {
		t.Errorf("min/mean = %.3f, want >= 0.5", r.Skew.MinOverMean)
	}
	var sum float64
	for _, g := range r.Regions {
		sum += g.Share
	}
	if sum < 0.9999 || sum > 1.0001 {
		t.Errorf("shares sum to %f, want 1", sum)
	}
	for i, s := range r.Slices {
		if s.Active != seeds.SMSRegions {
			t.Errorf("slice %d: %d active regions, want all %d (heat %v)", i, s.Active, seeds.SMSRegions, s.Regions)
		}
		if s.HotShare > 0.1 {
			t.Errorf("slice %d: hot region takes %.1f%%, want about 5%%", i, 100*s.HotShare)
		}
	}
}

// A timestamp-first key sends every write of a moment to one region: the
// same table over the same window, pre-split as well as it can be, shows
// one hot region per time slice although its total distribution is even.
func TestNaiveKeyHotspot(t *testing.T) {
	r := simulate(t, seedsim.NaiveSMSTableName, sim.Config{Records: 40_000, Seed: 7}, sim.WithSlices(seedsim.NaiveSMSRegions))
	if got := len(r.Regions); got != seedsim.NaiveSMSRegions {
		t.Fatalf("got %d regions, want %d", got, seedsim.NaiveSMSRegions)
	}
	if r.Skew.MaxOverMean >= 1.5 {
		t.Errorf("total max/mean = %.3f: the window splits should make the total even", r.Skew.MaxOverMean)
	}
	for i, s := range r.Slices {
		if s.Active != 1 || s.HotShare < 0.99 {
			t.Errorf("slice %d: %d active regions, hot share %.2f; want one hot region (heat %v)", i, s.Active, s.HotShare, s.Regions)
		}
		if s.Hot != i {
			t.Errorf("slice %d: hot region %d, want %d (time moves through the regions)", i, s.Hot, i)
		}
	}
}

// With one region and split emulation, a monotonically increasing key keeps
// splitting the last region: every split leaves a left daughter that never
// takes another write.
func TestSplitEmulationMonotonic(t *testing.T) {
	const n = 10_000
	ks := make([][]byte, n)
	for i := range ks {
		ks[i] = fmt.Appendf(nil, "k%08d", i)
	}
	src, err := sim.FromKeys("mono", nil, ks, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Simulate(context.Background(), src, sim.WithSplitRows(1000), sim.WithSlices(5))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Splits) < 10 {
		t.Fatalf("got %d splits, want at least 10", len(r.Splits))
	}
	if len(r.Final) != len(r.Splits)+1 {
		t.Errorf("got %d final regions after %d splits, want %d", len(r.Final), len(r.Splits), len(r.Splits)+1)
	}
	var total int64
	for i, g := range r.Final {
		total += g.Rows
		if g.Rows > 1001 {
			t.Errorf("final region %d holds %d rows, above the 1000-row threshold", i, g.Rows)
		}
		// Regions left behind split at their sampled median: about 500.
		if i < len(r.Final)-1 && (g.Rows < 350 || g.Rows > 650) {
			t.Errorf("final region %d holds %d rows, want about half the threshold", i, g.Rows)
		}
		if i > 0 && bytes.Compare(r.Final[i-1].Start, g.Start) >= 0 {
			t.Errorf("final regions out of order at %d: %s then %s", i, r.Final[i-1].Start, g.Start)
		}
		if i > 0 && !bytes.Equal(r.Final[i-1].End, g.Start) {
			t.Errorf("final region %d ends at %s, next starts at %s", i-1, r.Final[i-1].End, g.Start)
		}
	}
	if total != n {
		t.Errorf("final regions hold %d rows, want %d", total, n)
	}
	for i, e := range r.Splits {
		if i > 0 && bytes.Compare(r.Splits[i-1].Key, e.Key) >= 0 {
			t.Errorf("split %d at %s is not above the previous split %s: monotonic keys split the last region", i, e.Key, r.Splits[i-1].Key)
		}
		if e.Rows <= 1000 {
			t.Errorf("split %d of a region of %d rows, want > 1000", i, e.Rows)
		}
	}
	// One region only: every slice has a single, hot, region.
	for i, s := range r.Slices {
		if s.Active != 1 {
			t.Errorf("slice %d: %d active regions", i, s.Active)
		}
	}
}

// Uniform keys split everywhere and stay even.
func TestSplitEmulationUniform(t *testing.T) {
	r := simulate(t, seeds.SMSTableName, sim.Config{Records: 50_000, Seed: 3},
		sim.WithSplits(nil), sim.WithSplitRows(2_000), sim.WithSlices(0))
	if len(r.Regions) != 1 {
		t.Fatalf("got %d pre-split regions, want 1", len(r.Regions))
	}
	// 50,000 rows, regions of 1,000 to 2,000 rows: 25 to 50 regions.
	if n := len(r.Final); n < 25 || n > 50 {
		t.Errorf("got %d regions after splitting, want 25..50", n)
	}
	for i, g := range r.Final {
		if g.Rows > 2_001 || g.Rows < 500 {
			t.Errorf("final region %d holds %d rows, want 500..2000", i, g.Rows)
		}
	}
}

func TestSplitEmulationBytes(t *testing.T) {
	r := simulate(t, seeds.SMSTableName, sim.Config{Records: 50_000, Seed: 3},
		sim.WithSplitSize(256<<10), sim.WithFlushSize(64<<10), sim.WithSlices(0))
	if r.Bytes < 10<<20 {
		t.Fatalf("only %d bytes written", r.Bytes)
	}
	if len(r.Splits) == 0 {
		t.Fatalf("no splits of %s in 20 regions at 256 KiB", sim.HumanBytes(r.Bytes))
	}
	for i, g := range r.Final {
		if g.Bytes > 256<<10+1024 {
			t.Errorf("final region %d holds %d bytes, above 256 KiB", i, g.Bytes)
		}
	}
	if want := r.Bytes / (64 << 10); r.Flushes < want/2 || r.Flushes > want+int64(len(r.Final)) {
		t.Errorf("got %d flushes of 64 KiB for %d bytes, want about %d", r.Flushes, r.Bytes, want)
	}
}

// K servers take equal region counts; with even regions their loads are
// even too, and a hot region makes one server hot.
func TestServerLoad(t *testing.T) {
	for _, tc := range []struct {
		name       string
		servers    int
		wantCounts []int
	}{
		{"one", 1, []int{20}},
		{"three", 3, []int{7, 7, 6}},
		{"four", 4, []int{5, 5, 5, 5}},
		{"more servers than regions", 25, append(repeat(1, 20), repeat(0, 5)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := simulate(t, seeds.SMSTableName, sim.Config{Records: 20_000, Seed: 1}, sim.WithServers(tc.servers))
			if len(r.Servers) != tc.servers {
				t.Fatalf("got %d servers, want %d", len(r.Servers), tc.servers)
			}
			var rows int64
			for i, s := range r.Servers {
				if s.Regions != tc.wantCounts[i] {
					t.Errorf("server %s: %d regions, want %d", s.Name, s.Regions, tc.wantCounts[i])
				}
				rows += s.Rows
			}
			if rows != r.Rows {
				t.Errorf("servers hold %d rows, want %d", rows, r.Rows)
			}
			if tc.servers <= 4 && r.ServerSkew.MaxOverMean > 1.3 {
				t.Errorf("server max/mean %.2f, want even", r.ServerSkew.MaxOverMean)
			}
		})
	}
	// The naive key: in each slice, one server takes every write.
	r := simulate(t, seedsim.NaiveSMSTableName, sim.Config{Records: 20_000, Seed: 1}, sim.WithServers(4), sim.WithSlices(20))
	for i, s := range r.Slices {
		var hot int64
		for _, v := range s.Servers {
			hot = max(hot, v)
		}
		if hot != s.Rows {
			t.Errorf("slice %d: busiest server took %d of %d writes, want all", i, hot, s.Rows)
		}
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestRegionAssignment(t *testing.T) {
	splits := [][]byte{[]byte("b"), []byte("d"), []byte("f")}
	for _, tc := range []struct {
		key  string
		want int
	}{
		{"", 0}, {"a", 0}, {"azzz", 0}, {"b", 1}, {"b\x00", 1}, {"c", 1}, {"d", 2}, {"e", 2}, {"f", 3}, {"\xff", 3},
	} {
		s, err := sim.New(sim.WithSplits(splits), sim.WithSlices(0))
		if err != nil {
			t.Fatal(err)
		}
		s.Add(sim.Write{Key: []byte(tc.key), Size: 1})
		r := s.Report()
		for i, g := range r.Regions {
			if want := int64(0); i == tc.want {
				want = 1
				if g.Rows != want {
					t.Errorf("key %q (%x): region %d has %d rows, want 1", tc.key, tc.key, i, g.Rows)
				}
			} else if g.Rows != want {
				t.Errorf("key %q (%x): region %d has %d rows, want 0", tc.key, tc.key, i, g.Rows)
			}
		}
	}
}

func TestOptionsValidated(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []sim.Option
	}{
		{"zero servers", []sim.Option{sim.WithServers(0)}},
		{"negative slices", []sim.Option{sim.WithSlices(-1)}},
		{"slices without window", []sim.Option{sim.WithSlices(3)}},
		{"empty window", []sim.Option{sim.WithWindow(time.Unix(10, 0), time.Unix(10, 0))}},
		{"negative split size", []sim.Option{sim.WithSlices(0), sim.WithSplitSize(-1)}},
		{"negative split rows", []sim.Option{sim.WithSlices(0), sim.WithSplitRows(-1)}},
		{"negative flush size", []sim.Option{sim.WithSlices(0), sim.WithFlushSize(-1)}},
		{"tiny sample", []sim.Option{sim.WithSlices(0), sim.WithSampleKeys(1)}},
		{"unsorted splits", []sim.Option{sim.WithSlices(0), sim.WithSplits([][]byte{[]byte("b"), []byte("a")})}},
		{"empty split", []sim.Option{sim.WithSlices(0), sim.WithSplits([][]byte{{}})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.New(tc.opts...)
			var ce *sim.ConfigError
			if !errors.Is(err, sim.ErrInvalidConfig) || !errors.As(err, &ce) {
				t.Fatalf("New: got %v, want a *ConfigError wrapping ErrInvalidConfig", err)
			}
		})
	}
	for _, tc := range []struct {
		name string
		cfg  sim.Config
	}{
		{"no records", sim.Config{}},
		{"negative entities", sim.Config{Records: 1, Entities: -1}},
		{"negative days", sim.Config{Records: 1, Days: -1}},
		{"negative accounts", sim.Config{Records: 1, Accounts: -2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := seedsim.NewSMSWorkload(tc.cfg); !errors.Is(err, sim.ErrInvalidConfig) {
				t.Fatalf("NewSMSWorkload: got %v, want ErrInvalidConfig", err)
			}
		})
	}
	if _, err := seedsim.Builtin("no_such_table", sim.Config{Records: 1}); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("Builtin(no_such_table): got %v, want ErrInvalidConfig", err)
	}
}

// The generator is deterministic, realistic and allocation-free.
func TestSMSWorkload(t *testing.T) {
	cfg := sim.Config{Records: 5_000, Entities: 1_000, Accounts: 10, Days: 2, Seed: 42}
	w, err := seedsim.NewSMSWorkload(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mobiles := w.Mobiles()
	seen := map[string]bool{}
	for _, m := range mobiles {
		if len(m) != 11 || m[0] != '1' || m[1] < '3' || m[1] > '9' || strings.Trim(m, "0123456789") != "" {
			t.Errorf("mobile %q is not a Chinese mobile number", m)
		}
		if seen[m] {
			t.Errorf("mobile %q drawn twice", m)
		}
		seen[m] = true
	}
	if len(mobiles) != 1_000 {
		t.Errorf("got %d mobiles, want 1000", len(mobiles))
	}
	from, to := w.Window()
	var first []seeds.SMS
	var last time.Time
	for m := range w.Records() {
		first = append(first, *m)
		if m.SentAt.Before(from) || !m.SentAt.Before(to) {
			t.Fatalf("message at %v outside [%v, %v)", m.SentAt, from, to)
		}
		if m.SentAt.Before(last) {
			t.Fatalf("message at %v after one at %v: not in time order", m.SentAt, last)
		}
		last = m.SentAt
		if !seen[m.Mobile] {
			t.Fatalf("message to unknown mobile %q", m.Mobile)
		}
	}
	if int64(len(first)) != cfg.Records {
		t.Fatalf("got %d messages, want %d", len(first), cfg.Records)
	}
	w2, err := seedsim.NewSMSWorkload(cfg)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for m := range w2.Records() {
		if !reflect.DeepEqual(*m, first[i]) {
			t.Fatalf("message %d differs between runs: %+v, %+v", i, *m, first[i])
		}
		i++
	}
	if !raceEnabled {
		allocs := testing.AllocsPerRun(3, func() {
			for range w.Records() {
			}
		})
		if allocs > 5 {
			t.Errorf("generating %d messages allocates %.0f times, want a constant", cfg.Records, allocs)
		}
	}
}

// Adding writes allocates nothing once the split emulation's samples are
// full.
func TestAddAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	s, err := sim.New(sim.WithSplits([][]byte{[]byte("5")}), sim.WithWindow(time.Unix(0, 0), time.Unix(100, 0)), sim.WithSplitSize(1<<40))
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("3000")
	for i := range 1000 {
		key[1] = byte('0' + i%10)
		s.Add(sim.Write{Key: key, At: int64(i), Size: 50})
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		key[2] = byte('0' + i%10)
		s.Add(sim.Write{Key: key, At: int64(i % 100_000), Size: 50})
	})
	if allocs != 0 {
		t.Errorf("Add allocates %.1f times per write, want 0", allocs)
	}
}

func TestNaiveTable(t *testing.T) {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	splits, err := seedsim.NaiveSMSSplits(from, from.Add(48*time.Hour), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"20250301120000", "20250302000000", "20250302120000"}
	if got := fmt.Sprintf("%s", splits); got != fmt.Sprintf("%s", want) {
		t.Errorf("NaiveSMSSplits = %s, want %s", got, want)
	}
	tbl, err := seedsim.NaiveSMSTable(splits)
	if err != nil {
		t.Fatal(err)
	}
	m := seeds.SMS{Mobile: "13812345678", SentAt: time.Date(2025, 3, 1, 13, 4, 5, 0, time.UTC), Seq: 0x2a}
	key, err := tbl.AppendKey(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(key), "20250301130405"+"13812345678"+"002a"; got != want {
		t.Errorf("naive key = %q (%x), want %q", got, key, want)
	}
	var back seeds.SMS
	if err := tbl.DecodeKey(key, &back); err != nil {
		t.Fatal(err)
	}
	if !back.SentAt.Equal(m.SentAt) || back.Mobile != m.Mobile || back.Seq != m.Seq {
		t.Errorf("decoded %+v, want %+v", back, m)
	}
	if _, err := seedsim.NaiveSMSSplits(from, from, 4); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("empty window: got %v, want ErrInvalidConfig", err)
	}
}

// Every built-in table has a workload, and a simulation of it runs.
func TestEveryBuiltin(t *testing.T) {
	for _, name := range seedsim.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			r := simulate(t, name, sim.Config{Records: 2_000, Seed: 1}, sim.WithServers(2))
			if r.Rows != 2_000 || r.Table != name {
				t.Errorf("got %d rows of %q, want 2000 of %q", r.Rows, r.Table, name)
			}
			src, err := seedsim.Builtin(name, sim.Config{Records: 2_000, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(r.Regions); got != len(src.Splits())+1 {
				t.Errorf("got %d regions for %d split keys", got, len(src.Splits()))
			}
		})
	}
}

func TestCompare(t *testing.T) {
	a := simulate(t, seeds.SMSTableName, sim.Config{Records: 20_000, Seed: 1})
	b := simulate(t, seeds.SMSTableName, sim.Config{Records: 20_000, Seed: 2})
	b.Measured = true
	c, err := sim.Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Regions) != 20 || c.MaxPoints <= 0 || c.MaxPoints > 2 {
		t.Errorf("two seeds differ by %.2f pp over %d regions; want a small non-zero difference", c.MaxPoints, len(c.Regions))
	}
	var text bytes.Buffer
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "diff pp") {
		t.Errorf("comparison text lacks its header:\n%s", text.String())
	}
	checkSVG(t, c.WriteSVG)
	one := simulate(t, seeds.SMSTableName, sim.Config{Records: 100, Seed: 1}, sim.WithSplits(nil))
	if _, err := sim.Compare(one, b); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("Compare of 1 and 20 regions: got %v, want ErrInvalidConfig", err)
	}
}

func checkSVG(t *testing.T, write func(io.Writer) error) {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&buf)
	n := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			n++
		}
	}
	if n < 2 {
		t.Errorf("SVG has %d rects, want bars", n)
	}
}

func TestRender(t *testing.T) {
	r := simulate(t, seedsim.NaiveSMSTableName, sim.Config{Records: 5_000, Seed: 1},
		sim.WithServers(3), sim.WithSplitSize(32<<10), sim.WithSlices(4))
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"simulated sms_naive: 5000 rows", "skew: max/mean", "time slices", "region splits", "\nregions at the end:", "region servers", "rs3"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	checkSVG(t, r.WriteSVG)
	if len(r.Splits) == 0 {
		t.Fatalf("no splits to chart")
	}
	checkSVG(t, r.WriteFinalSVG)
	var page bytes.Buffer
	if err := sim.WriteHTML(&page, "sms", []func(io.Writer) error{r.WriteSVG}, []func(io.Writer) error{r.WriteText}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<svg") || !strings.Contains(page.String(), "<pre>") {
		t.Errorf("HTML page lacks the chart or the text")
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if regions, _ := back["regions"].([]any); len(regions) != 20 {
		t.Errorf("JSON has %d regions, want 20", len(regions))
	}
	if !strings.Contains(string(js), `"end":"20250102`) {
		t.Errorf("JSON keys are not readable: %.300s", js)
	}
}

func TestKeyString(t *testing.T) {
	for _, tc := range []struct {
		key  []byte
		want string
	}{
		{nil, ""},
		{[]byte("05"), "05"},
		{[]byte{0, 1, 'a', 0xff}, `\x00\x01a\xFF`},
		{[]byte(`a\b`), `a\x5Cb`},
	} {
		if got := sim.Key(tc.key).String(); got != tc.want {
			t.Errorf("Key(%x).String() = %q, want %q", tc.key, got, tc.want)
		}
		back, err := sim.ParseKey(tc.want)
		if err != nil || !bytes.Equal(back, tc.key) {
			t.Errorf("ParseKey(%q) = %x, %v; want %x", tc.want, back, err, tc.key)
		}
	}
	if _, err := sim.ParseKey(`\xG0`); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("ParseKey of a bad escape: got %v, want ErrInvalidConfig", err)
	}
}

func TestCanceled(t *testing.T) {
	src, err := seedsim.Builtin(seeds.SMSTableName, sim.Config{Records: 100_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sim.Simulate(ctx, src); !errors.Is(err, context.Canceled) {
		t.Errorf("Simulate with a canceled context: got %v, want context.Canceled", err)
	}
}

// HBase 2's stepping policy: a region alone on its server splits early,
// past twice the flush size; once servers hold several regions of the
// table, regions grow to the full split size.
func TestSteppingSplit(t *testing.T) {
	const flush, maxSize = 64 << 10, 1 << 20
	for _, tc := range []struct {
		servers, early int // splits expected at 2×flush
	}{
		{1, 1}, // 1 → 2 regions; then both share the server
		// Regions alone on a server keep splitting early until every
		// server holds two: 1 → 8 regions.
		{4, 7},
	} {
		t.Run(fmt.Sprintf("%d servers", tc.servers), func(t *testing.T) {
			r := simulate(t, seeds.SMSTableName, sim.Config{Records: 40_000, Seed: 5},
				sim.WithSplits(nil), sim.WithServers(tc.servers), sim.WithSlices(0),
				sim.WithFlushSize(flush), sim.WithSplitSize(maxSize), sim.WithSteppingSplit())
			if r.SplitPolicy != "stepping" || len(r.Splits) <= tc.early {
				t.Fatalf("policy %q, %d splits; want stepping and more than %d", r.SplitPolicy, len(r.Splits), tc.early)
			}
			for i, e := range r.Splits {
				early := e.Bytes <= 2*flush+4096
				if i < tc.early && !early {
					t.Errorf("split %d of a region of %s, want it past 2×flush = %s", i, sim.HumanBytes(e.Bytes), sim.HumanBytes(2*flush))
				}
				if i >= tc.early && e.Bytes <= maxSize {
					t.Errorf("split %d of a region of %s, want it past %s (regions share servers)", i, sim.HumanBytes(e.Bytes), sim.HumanBytes(maxSize))
				}
			}
		})
	}
	if _, err := sim.New(sim.WithSlices(0), sim.WithFlushSize(0), sim.WithSteppingSplit()); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("stepping without a flush size: got %v, want ErrInvalidConfig", err)
	}
}

// Busy mobiles make busy regions: a Zipf popularity skews the same design.
func TestZipfWorkload(t *testing.T) {
	even := simulate(t, seeds.SMSTableName, sim.Config{Records: 50_000, Seed: 2}, sim.WithSlices(0))
	busy := simulate(t, seeds.SMSTableName, sim.Config{Records: 50_000, Seed: 2, Zipf: 1.5}, sim.WithSlices(0))
	if busy.Skew.MaxOverMean < 1.5 || busy.Skew.MaxOverMean <= even.Skew.MaxOverMean {
		t.Errorf("max/mean %.2f with Zipf 1.5, %.2f uniform; want the Zipf load clearly skewed",
			busy.Skew.MaxOverMean, even.Skew.MaxOverMean)
	}
	for _, z := range []float64{-1, 0.5, 1, 1000} {
		if _, err := seedsim.NewSMSWorkload(sim.Config{Records: 1, Zipf: z}); !errors.Is(err, sim.ErrInvalidConfig) {
			t.Errorf("Zipf %g: got %v, want ErrInvalidConfig", z, err)
		}
	}
	for _, name := range []string{seeds.LogDataMD5Name, seeds.OrderMD5Name} {
		simulate(t, name, sim.Config{Records: 2_000, Seed: 2, Zipf: 1.2})
	}
}
