package hbase

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// randomPut is a valid Put of 1 to 4 families of 1 to 7 cells each, with
// qualifiers and values of 0 to 300 bytes (lengths of one and two varint
// bytes), and any timestamp and durability.
func randomPut(rng *rand.Rand) *Put {
	p := &Put{Table: "t", Row: bytes.Repeat([]byte{'r'}, 1+rng.IntN(200)), Values: map[string]map[string][]byte{}}
	for f := range 1 + rng.IntN(4) {
		qs := map[string][]byte{}
		for q := range 1 + rng.IntN(6) {
			v := []byte{}
			if rng.IntN(3) > 0 {
				v = bytes.Repeat([]byte{byte(q)}, rng.IntN(300))
			}
			qs[string(bytes.Repeat([]byte{'q'}, rng.IntN(300)))+strconv.Itoa(q)] = v
		}
		if rng.IntN(5) == 0 {
			qs[""] = []byte("empty qualifier")
		}
		p.Values["f"+strconv.Itoa(f)] = qs
	}
	switch rng.IntN(4) {
	case 0:
		p.Timestamp = 0
	case 1:
		p.Timestamp = LatestTimestamp
	case 2:
		p.Timestamp = 1 + rng.Int64N(1<<20)
	default:
		p.Timestamp = 1_700_000_000_000 + rng.Int64N(1<<40)
	}
	p.Durability = Durability(rng.IntN(5))
	return p
}

// TestPutWireMatchesProto: the Action a Batch sends for a Put, encoded
// straight from the map (putActionField), is byte for byte the Action
// with the MutationProto of putToPB, and reads back as that message.
func TestPutWireMatchesProto(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	puts := []*Put{
		{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"q": []byte("v")}}},
		{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"": {}}}},
		{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"b": {"z": {}, "a": {1}}, "a": {"q": {2}}}, Timestamp: 5, Durability: SyncWAL},
	}
	for range 500 {
		puts = append(puts, randomPut(rng))
	}
	// Lengths of three varint bytes.
	big := bytes.Repeat([]byte{'v'}, 20000)
	puts = append(puts, &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{
		"cf": {string(big[:17000]): big, "b": {}}}, Timestamp: 1 << 40})
	for i, p := range puts {
		if err := p.Validate(); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		idx := proto.Uint32(uint32(i))
		want, err := proto.Marshal(&pb.Action{Index: idx, Mutation: putToPB(p, p.Row)})
		if err != nil {
			t.Fatal(err)
		}
		raw, ok := putActionField(p, p.Row, math.MaxInt)
		if !ok {
			t.Fatalf("put %d: not encoded without a bound", i)
		}
		a := &pb.Action{Index: idx}
		a.ProtoReflect().SetUnknown(raw)
		got, err := proto.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("put %d (%+v): encoded\n%x\nwant\n%x", i, p, got, want)
		}
		var back pb.Action
		if err := proto.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(&back, &pb.Action{Index: idx, Mutation: putToPB(p, p.Row)}) {
			t.Fatalf("put %d: reads back as %v", i, &back)
		}
	}
}

// TestPutWireAllocs: a Put of a Batch costs two allocations (its sorted
// cells and its bytes) before the request is marshalled.
func TestPutWireAllocs(t *testing.T) {
	p := &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"a": []byte("1"), "b": []byte("2")}}}
	a := &pb.Action{}
	if n := testing.AllocsPerRun(100, func() {
		raw, _ := putActionField(p, p.Row, maxPutWire)
		a.ProtoReflect().SetUnknown(raw)
	}); n > 2 {
		t.Errorf("putActionField: %v allocations, want at most 2", n)
	}
}

// TestBatchEncodesLargePutsAsMessages: a Batch encodes a Put up to
// maxPutWire bytes straight into its Action, and a larger one as the
// generated message, which points at its values instead of copying them.
func TestBatchEncodesLargePutsAsMessages(t *testing.T) {
	c := &Client{}
	for _, tc := range []struct {
		size int
		wire bool
	}{{10, true}, {maxPutWire - 100, true}, {maxPutWire, false}, {1 << 20, false}} {
		p := &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"q": make([]byte, tc.size)}}}
		it, err := c.newBatchItem(new(batchItem), 0, p)
		if err != nil {
			t.Fatal(err)
		}
		if wire := it.pa.Mutation == nil && len(it.pa.ProtoReflect().GetUnknown()) > 0; wire != tc.wire {
			t.Errorf("value of %d bytes: encoded straight %v, want %v", tc.size, wire, tc.wire)
		}
		if !it.idempotent {
			t.Errorf("value of %d bytes: not idempotent", tc.size)
		}
	}
}

// TestBatchWirePutsRetried sends a Batch of wire-encoded Puts across
// regions that moved since the client cached them, the server refusing
// the first five actions it sees as NotServingRegion: the retried actions
// go out again from the bytes encoded once (their index is their own,
// their region is in the RegionAction), every action the server decodes
// has its mutation and nothing left over, and every value lands.
func TestBatchWirePutsRetried(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 2)
	c := fc.client()
	var acts []Action
	for i := range 40 {
		acts = append(acts, tput(fmt.Sprintf("%c%02d", 'a'+i%26, i), fmt.Sprintf("v%d", i)))
	}
	if _, err := c.Batch(testCtx(t), acts[:2]); err != nil { // the regions cached
		t.Fatal(err)
	}
	fc.move("m", "rs1:16020")
	fc.move("", "rs2:16020")
	var seen, refused atomic.Int32
	fc.set(func() {
		fc.actionHook = func(addr string, reg *fakeRegion, a *pb.Action) *pb.NameBytesPair {
			seen.Add(1)
			if a.GetMutation() == nil || len(a.ProtoReflect().GetUnknown()) != 0 {
				t.Errorf("the server decoded action %d without its mutation or with %d unknown bytes", a.GetIndex(), len(a.ProtoReflect().GetUnknown()))
			}
			if refused.Add(1) <= 5 {
				return &pb.NameBytesPair{Name: proto.String(excNotServingRegion)}
			}
			return nil
		}
	})
	if _, err := c.Batch(testCtx(t), acts); err != nil {
		t.Fatal(err)
	}
	if n := seen.Load(); n != int32(len(acts))+5 {
		t.Errorf("the server saw %d actions, want %d and the 5 refused sent again", n, len(acts))
	}
	for i, a := range acts {
		p := a.(*Put)
		r, err := c.Get(testCtx(t), &Get{Table: "t", Row: p.Row})
		if err != nil || value(r) != fmt.Sprintf("v%d", i) {
			t.Fatalf("row %s: %v, value %q", p.Row, err, value(r))
		}
	}
}

// TestPutCellsEncodeAsValues: a Put given as Cells, sorted or not, is
// sent byte for byte as the same Put given as Values, alone in a Batch
// (putActionField, putToPB) and as the mutation of a CheckAndMutate
// (camActions against the generated messages of camToPB); sorted Cells
// cost one allocation, the bytes.
func TestPutCellsEncodeAsValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		byMap := randomPut(rng)
		sorted := &Put{Table: byMap.Table, Row: byMap.Row, Cells: byMap.SortedCells(), Timestamp: byMap.Timestamp, Durability: byMap.Durability}
		shuffled := *sorted
		shuffled.Cells = append([]PutCell(nil), sorted.Cells...)
		rng.Shuffle(len(shuffled.Cells), func(a, b int) { shuffled.Cells[a], shuffled.Cells[b] = shuffled.Cells[b], shuffled.Cells[a] })
		want, _ := putActionField(byMap, byMap.Row, math.MaxInt)
		wantMsg, err := proto.Marshal(putToPB(byMap, byMap.Row))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []*Put{sorted, &shuffled} {
			if err := p.Validate(); err != nil {
				t.Fatalf("put %d: %v", i, err)
			}
			if got, _ := putActionField(p, p.Row, math.MaxInt); !bytes.Equal(got, want) {
				t.Fatalf("put %d: cells encoded\n%x\nwant\n%x", i, got, want)
			}
			if got, _ := proto.Marshal(putToPB(p, p.Row)); !bytes.Equal(got, wantMsg) {
				t.Fatalf("put %d: putToPB of cells\n%x\nwant\n%x", i, got, wantMsg)
			}
			cam := &CheckAndMutate{Table: "t", Row: p.Row, Family: []byte("f0"), Mutations: []Mutation{p, &Delete{Family: []byte("f1")}}}
			_, muts, err := camToPB(cam)
			if err != nil {
				t.Fatal(err)
			}
			acts, err := camActions(cam)
			if err != nil {
				t.Fatal(err)
			}
			for j, a := range atomicActions(muts) {
				w, _ := proto.Marshal(a)
				if g, _ := proto.Marshal(acts[j]); !bytes.Equal(g, w) {
					t.Fatalf("put %d: check-and-mutate action %d\n%x\nwant\n%x", i, j, g, w)
				}
			}
		}
	}
	p := &Put{Table: "t", Row: []byte("r"), Cells: []PutCell{{Family: "cf", Qualifier: "a", Value: []byte("1")}, {Family: "cf", Qualifier: "b", Value: []byte("2")}}}
	if n := testing.AllocsPerRun(100, func() { _, _ = putActionField(p, p.Row, maxPutWire) }); n > 1 {
		t.Errorf("putActionField of sorted cells: %v allocations, want 1", n)
	}
}
