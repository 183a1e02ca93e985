package hbase

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func TestLoadStatsDelay(t *testing.T) {
	const maxDelay = 10 * time.Second
	tests := []struct {
		name                 string
		memstore, heap, comp int32
		want                 time.Duration
	}{
		{"idle", 0, 40, 0, 0},
		{"memstore half full", 50, 40, 0, maxDelay / 16},
		{"memstore full", 100, 40, 0, maxDelay},
		{"heap below the low mark", 10, 94, 0, maxDelay / 10000},
		{"heap at the high mark", 0, 98, 0, maxDelay},
		{"heap over the high mark", 0, 100, 0, maxDelay},
		{"compaction pressure", 0, 0, 50, maxDelay / 16},
	}
	now := time.Now()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l loadStats
			name := []byte("t,,1.x.")
			l.note(&pb.MultiRegionLoadStats{
				Region: []*pb.RegionSpecifier{{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: name}},
				Stat: []*pb.RegionLoadStats{{MemStoreLoad: proto.Int32(tt.memstore), HeapOccupancy: proto.Int32(tt.heap),
					CompactionPressure: proto.Int32(tt.comp)}},
			}, now)
			got := l.delay(name, now, maxDelay)
			if diff := got - tt.want; diff < -time.Millisecond || diff > time.Millisecond {
				t.Errorf("delay = %v, want %v", got, tt.want)
			}
			if d := l.delay(name, now.Add(loadStatsTTL+time.Second), maxDelay); d != 0 {
				t.Errorf("delay from expired statistics = %v", d)
			}
			if d := l.delay([]byte("other"), now, maxDelay); d != 0 {
				t.Errorf("delay of another region = %v", d)
			}
		})
	}
	// What HBase 2.6 sends with its defaults: an empty message.
	var l loadStats
	l.note(&pb.MultiRegionLoadStats{}, now)
	l.note(nil, now)
	if len(l.byRegion) != 0 {
		t.Errorf("empty statistics recorded %v", l.byRegion)
	}
}

// TestLoadPause: a Multi to a region reported loaded waits before it is
// sent; to other regions it does not.
func TestLoadPause(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 2)
	c := fc.client(WithBackoff(time.Millisecond, 10*time.Second)) // 90% memstore: 6.5s
	ctx := testCtx(t)
	for _, row := range []string{"a", "z"} {
		if err := c.Put(ctx, tput(row, "v")); err != nil {
			t.Fatal(err)
		}
	}
	loaded, idle := c.regions.get("t", []byte("a")), c.regions.get("t", []byte("z"))
	c.noteLoad(&pb.MultiResponse{RegionStatistics: &pb.MultiRegionLoadStats{
		Region: []*pb.RegionSpecifier{loaded.specifier()},
		Stat:   []*pb.RegionLoadStats{{MemStoreLoad: proto.Int32(90)}},
	}})
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.loadPause(done, &multiReq{groups: []*regionGroup{{reg: idle}}}); err != nil {
		t.Errorf("pause before an idle region: %v", err)
	}
	if err := c.loadPause(done, &multiReq{groups: []*regionGroup{{reg: idle}, {reg: loaded}}}); !errors.Is(err, context.Canceled) {
		t.Errorf("pause before a loaded region = %v, want it to wait (and see the context end)", err)
	}
	// A Batch to the loaded region fails with the caller's context rather
	// than send while it would have to wait past it.
	short, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	before := fc.count("", "Multi")
	_, err := c.Batch(short, []Action{tput("a", "w")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Batch to a loaded region: %v", err)
	}
	if got := fc.count("", "Multi") - before; got != 0 {
		t.Errorf("%d Multis sent during the pause", got)
	}
}
