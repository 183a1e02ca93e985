package hbase

import (
	"context"
	"sync"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
)

// Client-side backpressure from the servers' load statistics.
//
// A region server attaches the load of the regions a Multi touched to its
// response (MultiResponse.regionStatistics: memstore fill, heap
// occupancy, compaction pressure) when hbase.client.backpressure.enabled
// is true on the server; HBase 2.6 with its defaults sends the message
// empty. The client keeps the latest statistics of each region and delays
// the next Multi to a loaded region, the longer the closer the region is
// to blocking writes: pressure⁴ × the backoff cap, where pressure is the
// largest of the memstore fill, the compaction pressure (both in
// percent) and the heap occupancy scaled from 0.1 at 95 % to 1 at 98 %.
// Statistics older than loadStatsTTL are ignored.

const (
	loadStatsTTL = 30 * time.Second
	// heapLow and heapHigh (percent) bound the heap occupancy that counts
	// as pressure.
	heapLow, heapHigh = 95, 98
	// maxLoadEntries bounds the regions remembered; older entries are
	// dropped first when it is exceeded.
	maxLoadEntries = 1 << 14
)

// loadStats is the latest load reported for each region, by region name.
type loadStats struct {
	mu       sync.Mutex
	byRegion map[string]regionLoad // guarded by mu
}

type regionLoad struct {
	pressure float64 // 0..1, see pressureOf
	at       time.Time
}

// note records the statistics of one Multi response; nil or empty
// statistics change nothing.
func (l *loadStats) note(st *pb.MultiRegionLoadStats, now time.Time) {
	regions, stats := st.GetRegion(), st.GetStat()
	if len(regions) == 0 || len(regions) != len(stats) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byRegion == nil {
		l.byRegion = make(map[string]regionLoad)
	}
	for i, spec := range regions {
		p := pressureOf(stats[i])
		if p == 0 {
			delete(l.byRegion, string(spec.GetValue()))
			continue
		}
		l.byRegion[string(spec.GetValue())] = regionLoad{pressure: p, at: now}
	}
	if len(l.byRegion) > maxLoadEntries {
		for k, v := range l.byRegion {
			if now.Sub(v.at) > loadStatsTTL || len(l.byRegion) > maxLoadEntries {
				delete(l.byRegion, k)
			}
		}
	}
}

// pressureOf turns one region's statistics into a pressure in [0, 1].
func pressureOf(s *pb.RegionLoadStats) float64 {
	p := float64(s.GetMemStoreLoad()) / 100
	if h := s.GetHeapOccupancy(); h >= heapLow {
		hp := 0.1 + 0.9*float64(min(h, heapHigh)-heapLow)/float64(heapHigh-heapLow)
		p = max(p, hp)
	}
	p = max(p, float64(s.GetCompactionPressure())/100)
	return min(max(p, 0), 1)
}

// delay returns how long to wait before sending to the region named name:
// pressure⁴ × maxDelay.
func (l *loadStats) delay(name []byte, now time.Time, maxDelay time.Duration) time.Duration {
	l.mu.Lock()
	v, ok := l.byRegion[string(name)]
	l.mu.Unlock()
	if !ok || now.Sub(v.at) > loadStatsTTL {
		return 0
	}
	p2 := v.pressure * v.pressure
	return time.Duration(p2 * p2 * float64(maxDelay))
}

// noteLoad records the load statistics of a Multi response.
func (c *Client) noteLoad(resp *pb.MultiResponse) {
	c.regions.loads.note(resp.GetRegionStatistics(), time.Now())
}

// loadPause waits, before a Multi is sent, as long as the most loaded of
// its regions asks (see loadStats), within ctx.
func (c *Client) loadPause(ctx context.Context, mr *multiReq) error {
	now := time.Now()
	var d time.Duration
	for _, g := range mr.groups {
		d = max(d, c.regions.loads.delay(g.reg.name, now, c.opts.backoffMax))
	}
	if d <= 0 {
		return nil
	}
	return sleepUntil(ctx, now.Add(d), nil)
}
