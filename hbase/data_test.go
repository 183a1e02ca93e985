package hbase

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func tput(row, v string) *Put {
	return &Put{Table: "t", Row: []byte(row), Values: map[string]map[string][]byte{"cf": {"q": []byte(v)}}}
}

func value(r *Result) string { return string(r.Value([]byte("cf"), []byte("q"))) }

func TestGetPutLocatesAndCaches(t *testing.T) {
	fc := newFakeCluster(t, []string{"g", "p"}, 2)
	c := fc.client()
	ctx := testCtx(t)
	for _, row := range []string{"a", "h", "z", "b", "i"} {
		if err := c.Put(ctx, tput(row, "v"+row)); err != nil {
			t.Fatalf("Put(%s): %v", row, err)
		}
	}
	if got := fc.metaScans(); got != 3 {
		t.Errorf("meta scans = %d, want 3 (one per region, then cached)", got)
	}
	r, err := c.Get(ctx, &Get{Table: "t", Row: []byte("h")})
	if err != nil || value(r) != "vh" {
		t.Fatalf("Get(h) = %q, %v", value(r), err)
	}
	r, err = c.Get(ctx, &Get{Table: "t", Row: []byte("missing")})
	if err != nil || !r.Empty() {
		t.Fatalf("Get(missing) = %v, %v; want empty", r, err)
	}
	if got := fc.count("rs2:16020", "Mutate"); got != 2 {
		t.Errorf("rs2 got %d mutates, want 2 (rows h, i)", got)
	}
}

func TestRelocateOnNotServingRegion(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 2)
	c := fc.client()
	ctx := testCtx(t)
	if err := c.Put(ctx, tput("x", "1")); err != nil {
		t.Fatal(err)
	}
	before := fc.metaScans()
	fc.move("m", "rs3:16020") // rs2 now answers NotServingRegion
	if err := c.Put(ctx, tput("x", "2")); err != nil {
		t.Fatalf("Put after move: %v", err)
	}
	if fc.metaScans() != before+1 {
		t.Errorf("meta scans %d, want %d: one relocation", fc.metaScans(), before+1)
	}
	if fc.count("rs3:16020", "Mutate") != 1 {
		t.Errorf("the put did not reach the new server")
	}
}

func TestRegionMovedUsesNewLocation(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 2)
	c := fc.client()
	ctx := testCtx(t)
	if err := c.Put(ctx, tput("x", "1")); err != nil {
		t.Fatal(err)
	}
	fc.move("m", "rs3:16020")
	fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
		if addr == "rs2:16020" {
			x := fcException(excRegionMoved)
			x.Hostname, x.Port = proto.String("rs3"), proto.Int32(16020)
			return x
		}
		return nil
	}
	before := fc.metaScans()
	if err := c.Put(ctx, tput("x", "2")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if fc.metaScans() != before {
		t.Errorf("RegionMovedException caused a meta lookup")
	}
	if fc.count("rs3:16020", "Mutate") != 1 {
		t.Errorf("the put did not reach the new server")
	}
}

func TestRegionOpeningKeepsLocation(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	ctx := testCtx(t)
	var n atomic.Int32
	fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
		if method == "Get" && n.Add(1) <= 2 {
			return fcException(excRegionOpening)
		}
		return nil
	}
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err != nil {
		t.Fatal(err)
	}
	if fc.metaScans() != 1 {
		t.Errorf("RegionOpeningException caused %d meta lookups, want the first only", fc.metaScans())
	}
}

func TestRetriesAreBounded(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client(WithMaxRetries(3))
	ctx := testCtx(t)
	fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
		if method == "Get" {
			return fcException(excRegionTooBusy)
		}
		return nil
	}
	_, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")})
	var re *RemoteError
	if !errors.As(err, &re) || re.Class != excRegionTooBusy {
		t.Fatalf("Get = %v, want a RegionTooBusyException", err)
	}
	if !IsRetryable(err) {
		t.Errorf("IsRetryable(%v) = false", err)
	}
	if got := fc.count("", "Get"); got != 4 {
		t.Errorf("%d attempts, want 1 + 3 retries", got)
	}

	// The budget bounds the retries too.
	c = fc.client(WithMaxRetries(1000), WithRetryBudget(50*time.Millisecond))
	start := time.Now()
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err == nil {
		t.Fatal("Get succeeded")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("retry budget of 50ms took %v", d)
	}
}

func TestErrorsMapToSentinels(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	ctx := testCtx(t)
	err := c.Put(ctx, &Put{Table: "t", Row: []byte("a"), Values: map[string]map[string][]byte{"nope": {"q": {}}}})
	if !errors.Is(err, ErrNoSuchFamily) || IsRetryable(err) {
		t.Errorf("put to a missing family: %v (retryable %v)", err, IsRetryable(err))
	}
	_, err = c.Get(ctx, &Get{Table: "other", Row: []byte("a")})
	if !errors.Is(err, ErrTableNotFound) || IsRetryable(err) {
		t.Errorf("get from a missing table: %v", err)
	}
	fc.set(func() { fc.disabled = true })
	c = fc.client()
	err = c.Put(ctx, tput("a", "v"))
	if !errors.Is(err, ErrTableDisabled) || IsRetryable(err) {
		t.Errorf("put to a disabled table: %v", err)
	}
}

func TestValidationBeforeRPC(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	ctx := testCtx(t)
	calls := []func() error{
		func() error { _, err := c.Get(ctx, &Get{Table: "t"}); return err },
		func() error { return c.Put(ctx, &Put{Table: "t", Row: []byte("r")}) },
		func() error { return c.Delete(ctx, &Delete{Table: "bad name", Row: []byte("r")}) },
		func() error { _, err := c.Increment(ctx, nil); return err },
		func() error { _, err := c.Append(ctx, &Append{Table: "t", Row: []byte("r")}); return err },
		func() error {
			_, err := c.CheckAndMutate(ctx, &CheckAndMutate{Table: "t", Row: []byte("r")})
			return err
		},
		func() error { return c.MutateRow(ctx, &RowMutations{Table: "t"}) },
		func() error { _, err := c.Scan(ctx, &Scan{Table: "t", Limit: -1}); return err },
	}
	for i, call := range calls {
		var ie *InvalidRequestError
		if err := call(); !errors.As(err, &ie) {
			t.Errorf("call %d: %v, want *InvalidRequestError", i, err)
		}
	}
	if n := fc.count("", ""); n != 0 {
		t.Errorf("%d RPCs sent for invalid requests", n)
	}
	c.Close()
	if err := c.Put(ctx, tput("a", "v")); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close: %v, want ErrClosed", err)
	}
}

func TestContextEndsHangingCall(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	if err := c.Put(testCtx(t), tput("a", "v")); err != nil { // warm the cache
		t.Fatal(err)
	}
	fc.set(func() { fc.hang = true })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")})
	if !errors.Is(err, context.DeadlineExceeded) || IsRetryable(err) {
		t.Errorf("Get on a hanging server: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Get returned after %v", d)
	}
	// WithRPCTimeout retries a hanging attempt until the budget is spent.
	c = fc.client(WithRPCTimeout(10*time.Millisecond), WithMaxRetries(2))
	c.regions = newRegionCache()
	fc.set(func() { fc.hang = false })
	c.Put(testCtx(t), tput("a", "v"))
	fc.set(func() { fc.hang = true })
	_, err = c.Get(testCtx(t), &Get{Table: "t", Row: []byte("a")})
	if !errors.Is(err, errAttemptTimeout) {
		t.Errorf("Get with attempt timeouts: %v", err)
	}
}

func TestBatchRetriesOnlyFailedActions(t *testing.T) {
	fc := newFakeCluster(t, []string{"g", "p"}, 3)
	c := fc.client()
	ctx := testCtx(t)
	rows := []string{"a", "b", "h", "i", "q", "r"}
	var actions []Action
	for _, r := range rows {
		actions = append(actions, tput(r, "v"+r))
	}
	actions = append(actions, &Put{Table: "t", Row: []byte("c"), Values: map[string]map[string][]byte{"nope": {"q": {}}}}) // 6: no family
	actions = append(actions, &Get{Table: "t"})                                                                            // 7: invalid
	// Region-level NotServingRegion once on rs2 (region g..p), and a
	// per-action RetryImmediately once for row q.
	var rs2Fail, qFail atomic.Bool
	fc.actionHook = func(addr string, reg *fakeRegion, a *pb.Action) *pb.NameBytesPair {
		if addr == "rs2:16020" && rs2Fail.CompareAndSwap(false, true) {
			return &pb.NameBytesPair{Name: proto.String(excNotServingRegion), Value: []byte("moving")}
		}
		if string(a.GetMutation().GetRow()) == "q" && qFail.CompareAndSwap(false, true) {
			return &pb.NameBytesPair{Name: proto.String(excResultTooLarge), Value: []byte("too large")}
		}
		return nil
	}
	res, err := c.Batch(ctx, actions)
	var be *BatchError
	if !errors.As(err, &be) || len(be.Failed) != 2 || be.Failed[0].Index != 6 || be.Failed[1].Index != 7 {
		t.Fatalf("Batch error = %v, want actions 6 and 7 failed", err)
	}
	if !errors.Is(res[6].Err, ErrNoSuchFamily) || !errors.Is(res[7].Err, ErrEmptyRow) {
		t.Errorf("errors: %v, %v", res[6].Err, res[7].Err)
	}
	for i := range 6 {
		if res[i].Err != nil || res[i].Result == nil {
			t.Errorf("action %d: %+v", i, res[i])
		}
	}
	// Each row's put was sent once, plus the retried ones (h: region
	// failure hit h or i's first action only; q once more).
	sent := map[string]int{}
	for _, rows := range fc.multiRows() {
		for _, r := range rows {
			sent[r]++
		}
	}
	for _, r := range []string{"a", "b", "r"} {
		if sent[r] != 1 {
			t.Errorf("row %s sent %d times, want 1", r, sent[r])
		}
	}
	if sent["q"] != 2 {
		t.Errorf("row q sent %d times, want 2", sent["q"])
	}
	for _, r := range rows {
		if value(resultFromPB(fc.read([]byte(r)))) != "v"+r {
			t.Errorf("row %s not written", r)
		}
	}
	// Gets and increments come back in order.
	res, err = c.Batch(ctx, []Action{&Get{Table: "t", Row: []byte("q")}, &Increment{Table: "t", Row: []byte("n"), Deltas: map[string]map[string]int64{"cf": {"c": 5}}}, &Get{Table: "t", Row: []byte("a")}})
	if err != nil || value(res[0].Result) != "vq" || value(res[2].Result) != "va" || len(res[1].Result.Value([]byte("cf"), []byte("c"))) != 8 {
		t.Errorf("get/increment batch: %v %+v", err, res)
	}
}

func TestBatchSplitsLargeGroups(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	var actions []Action
	for i := range 2500 {
		actions = append(actions, tput(fmt.Sprintf("r%05d", i), "v"))
	}
	if _, err := c.Batch(testCtx(t), actions); err != nil {
		t.Fatal(err)
	}
	if got := fc.count("", "Multi"); got != 3 {
		t.Errorf("%d Multi requests for 2500 actions, want 3", got)
	}
}

// multis returns the Multi requests the fake received, in order.
func (fc *fakeCluster) multis() []*pb.MultiRequest {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	var out []*pb.MultiRequest
	for _, call := range fc.calls {
		if m, ok := call.req.(*pb.MultiRequest); ok {
			out = append(out, m)
		}
	}
	return out
}

// TestBatchSpreadsRegions: the regions of one server go out in parallel
// Multis, each region whole in one of them, while the Batch's budget of
// Multis in flight lasts; a server's Multis share that budget with the
// other servers'; regions with few actions share one Multi.
func TestBatchSpreadsRegions(t *testing.T) {
	for _, tt := range []struct {
		name    string
		splits  []string
		servers int
		actions int
		want    int // Multis
	}{
		{"three regions, one server", []string{"g", "p"}, 1, 260, 3},
		{"nine regions, one server", []string{"b", "d", "f", "h", "j", "l", "n", "p"}, 1, 260, maxMultiInFlight},
		{"nine regions, three servers", []string{"b", "d", "f", "h", "j", "l", "n", "p"}, 3, 260, 6},
		{"nine regions, nine servers", []string{"b", "d", "f", "h", "j", "l", "n", "p"}, 9, 260, 9},
		{"a few actions in each of three regions", []string{"g", "p"}, 1, 12, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCluster(t, tt.splits, tt.servers)
			c := fc.client()
			var actions []Action
			for i := range tt.actions {
				actions = append(actions, tput(fmt.Sprintf("%c%03d", 'a'+i*7%26, i), "v"))
			}
			res, err := c.Batch(testCtx(t), actions)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if r.Err != nil {
					t.Errorf("action %d: %v", i, r.Err)
				}
			}
			regionIn := map[string]int{} // region -> Multi
			multis := fc.multis()
			n := len(multis)
			for i, m := range multis {
				for _, ra := range m.GetRegionAction() {
					name := string(ra.GetRegion().GetValue())
					if prev, ok := regionIn[name]; ok && prev != i {
						t.Errorf("region %s in Multis %d and %d", name, prev, i)
					}
					regionIn[name] = i
				}
			}
			if n != tt.want || len(regionIn) != len(tt.splits)+1 {
				t.Errorf("%d Multis over %d regions, want %d over %d", n, len(regionIn), tt.want, len(tt.splits)+1)
			}
		})
	}
}

// TestBatchCheckAndMutate: each CheckAndMutate of a Batch is one atomic,
// conditional RegionAction (operator reversed), next to the plain actions
// of its server's Multi; results map back per action; only the failed one
// is resent.
func TestBatchCheckAndMutate(t *testing.T) {
	fc := newFakeCluster(t, []string{"g", "p"}, 3)
	c := fc.client()
	ctx := testCtx(t)
	fc.set(func() {
		fc.rows["b"] = map[string][]byte{"q": []byte("7")}
		fc.rows["h"] = map[string][]byte{"q": []byte("old")}
		fc.rows["i"] = map[string][]byte{"q": []byte("old")}
	})
	cam := func(row string, cmp CompareOp, value, set string) *CheckAndMutate {
		return &CheckAndMutate{Table: "t", Row: []byte(row), Family: []byte("cf"), Qualifier: []byte("q"), Compare: cmp,
			Value: []byte(value), Mutations: []Mutation{&Put{Values: map[string]map[string][]byte{"cf": {"q": []byte(set)}}}}}
	}
	tests := []struct {
		action    Action
		processed bool
		want      string // row's value afterwards
	}{
		{action: tput("a", "va"), want: "va"},
		{action: cam("b", CompareGreater, "5", "b2"), processed: true, want: "b2"},
		{action: cam("h", CompareEqual, "old", "new"), processed: true, want: "new"},
		{action: cam("i", CompareEqual, "x", "never"), want: "old"},
		{action: cam("q", CompareEqual, "", "q1"), processed: true},
		{action: cam("q", CompareEqual, "", "q2")},
		{action: cam("q", CompareEqual, "q1", "q3"), processed: true, want: "q3"},
		{action: tput("r", "vr"), want: "vr"},
	}
	var iFail atomic.Bool
	fc.set(func() {
		fc.actionHook = func(addr string, reg *fakeRegion, a *pb.Action) *pb.NameBytesPair {
			if string(a.GetMutation().GetRow()) == "i" && iFail.CompareAndSwap(false, true) {
				return &pb.NameBytesPair{Name: proto.String(excNotServingRegion), Value: []byte("moving")}
			}
			return nil
		}
	})
	actions := make([]Action, len(tests))
	for i, tt := range tests {
		actions[i] = tt.action
	}
	res, err := c.Batch(ctx, actions)
	if err != nil {
		t.Fatalf("Batch: %v", err)
	}
	for i, tt := range tests {
		if res[i].Err != nil || res[i].Result == nil || res[i].Processed != tt.processed {
			t.Errorf("action %d: %+v, want Processed %v", i, res[i], tt.processed)
		}
	}
	for _, tt := range tests {
		if tt.want == "" {
			continue
		}
		var row []byte
		switch a := tt.action.(type) {
		case *Put:
			row = a.Row
		case *CheckAndMutate:
			row = a.Row
		}
		if got := value(resultFromPB(fc.read(row))); got != tt.want {
			t.Errorf("row %s = %q, want %q", row, got, tt.want)
		}
	}
	// The request shape, and which conditions were sent how often.
	sent := map[string]int{}
	for _, m := range fc.multis() {
		for _, ra := range m.GetRegionAction() {
			cond := ra.GetCondition()
			if cond == nil {
				continue
			}
			sent[string(cond.GetRow())]++
			if !ra.GetAtomic() || len(ra.GetAction()) != 1 {
				t.Errorf("conditional RegionAction %v: want atomic, one action", ra)
			}
			if string(cond.GetRow()) == "b" && cond.GetCompareType() != pb.CompareType_LESS {
				t.Errorf("condition sent %v, want LESS (HBase compares value op stored)", cond.GetCompareType())
			}
		}
	}
	multis := fc.count("", "Multi")
	if fmt.Sprint(sent) != "map[b:1 h:1 i:2 q:3]" {
		t.Errorf("conditions sent %v, want each once, i twice", sent)
	}
	// Three servers in the first round, one for the retry of i.
	if multis != 4 {
		t.Errorf("%d Multi requests, want 4", multis)
	}
}

// TestBatchSpreadsCheckAndMutates: many CheckAndMutates for one server go
// out in parallel Multis, those of one row together and in batch order.
func TestBatchSpreadsCheckAndMutates(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 1)
	c := fc.client()
	var actions []Action
	for i := range 100 {
		row := fmt.Sprintf("%c%03d", "ar"[i%2], i%90) // both regions; rows of i < 10 get two
		set := fmt.Sprintf("v%d", i)
		value := ""
		if i >= 90 {
			value = fmt.Sprintf("v%d", i-90)
		}
		actions = append(actions, &CheckAndMutate{Table: "t", Row: []byte(row), Family: []byte("cf"), Qualifier: []byte("q"),
			Value: []byte(value), Mutations: []Mutation{&Put{Values: map[string]map[string][]byte{"cf": {"q": []byte(set)}}}}})
	}
	actions = append(actions, tput("zz", "plain"))
	res, err := c.Batch(testCtx(t), actions)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil || !r.Processed != (i == 100) {
			t.Errorf("action %d: %+v", i, r)
		}
	}
	for i := range 10 {
		row := fmt.Sprintf("%c%03d", "ar"[i%2], i)
		if got := value(resultFromPB(fc.read([]byte(row)))); got != fmt.Sprintf("v%d", 90+i) {
			t.Errorf("row %s = %q, want the second write", row, got)
		}
	}
	multiOf := map[string]int{}
	multis := fc.multis()
	n := len(multis)
	for i, m := range multis {
		for _, ra := range m.GetRegionAction() {
			if cond := ra.GetCondition(); cond != nil {
				if prev, ok := multiOf[string(cond.GetRow())]; ok && prev != i {
					t.Errorf("row %s in Multis %d and %d", cond.GetRow(), prev, i)
				}
				multiOf[string(cond.GetRow())] = i
			}
		}
	}
	if n < 2 || n > maxMultiInFlight {
		t.Errorf("%d Multis for 100 CheckAndMutates, want 2..%d", n, maxMultiInFlight)
	}
}

func TestCheckAndMutateAndMutateRowRequests(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	ctx := testCtx(t)
	ok, err := c.CheckAndMutate(ctx, &CheckAndMutate{Table: "t", Row: []byte("a"), Family: []byte("cf"), Qualifier: []byte("q"),
		Compare: CompareGreater, Value: []byte("5"), Mutations: []Mutation{&Put{Values: map[string]map[string][]byte{"cf": {"q": []byte("x")}}}}})
	if err != nil || !ok {
		t.Fatalf("CheckAndMutate = %v, %v", ok, err)
	}
	fc.mu.Lock()
	mr := fc.calls[len(fc.calls)-1].req.(*pb.MutateRequest)
	fc.mu.Unlock()
	if got := mr.GetCondition().GetCompareType(); got != pb.CompareType_LESS {
		t.Errorf("condition sent %v, want LESS (HBase compares value op stored)", got)
	}
	if err := c.MutateRow(ctx, &RowMutations{Table: "t", Row: []byte("a"), Mutations: []Mutation{
		&Put{Values: map[string]map[string][]byte{"cf": {"q": []byte("y")}}}, &Delete{Family: []byte("cf"), Qualifier: []byte("old")}}}); err != nil {
		t.Fatal(err)
	}
	fc.mu.Lock()
	multi := fc.calls[len(fc.calls)-1].req.(*pb.MultiRequest)
	fc.mu.Unlock()
	if ra := multi.GetRegionAction(); len(ra) != 1 || !ra[0].GetAtomic() || len(ra[0].GetAction()) != 2 {
		t.Errorf("MutateRow sent %v, want one atomic RegionAction of 2 actions", multi)
	}
}

func TestIncrementCarriesNonce(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	ctx := testCtx(t)
	var fails atomic.Int32
	fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
		if method == "Mutate" && fails.Add(1) == 1 {
			return fcException("java.io.IOException")
		}
		return nil
	}
	r, err := c.Increment(ctx, &Increment{Table: "t", Row: []byte("n"), Deltas: map[string]map[string]int64{"cf": {"c": 3}}})
	if err != nil || len(r.Cells) != 1 {
		t.Fatalf("Increment = %v, %v", r, err)
	}
	fc.mu.Lock()
	var nonces []uint64
	for _, call := range fc.calls {
		if m, ok := call.req.(*pb.MutateRequest); ok {
			if m.GetNonceGroup() != c.nonceGroup {
				t.Errorf("nonce group %d, want %d", m.GetNonceGroup(), c.nonceGroup)
			}
			nonces = append(nonces, m.GetMutation().GetNonce())
		}
	}
	fc.mu.Unlock()
	if len(nonces) != 2 || nonces[0] == 0 || nonces[0] != nonces[1] {
		t.Errorf("nonces %v, want the same non-zero nonce on the retry", nonces)
	}
}

func TestClassifyAndErrorType(t *testing.T) {
	tests := []struct {
		class string
		want  retryKind
	}{
		{excNotServingRegion, retryRelocate},
		{excRegionMoved, retryMoved},
		{excRegionOpening, retryBackoff},
		{excCallQueueTooBig, retryOverloaded},
		{excRetryImmediately, retryNow},
		{excUnknownScanner, retryReopenScanner},
		{excTableNotFound, retryNever},
		{excConstraint, retryNever},
		{"java.io.IOException", retryBackoff},
	}
	for _, tc := range tests {
		if got := classifyClass(tc.class, false, false); got != tc.want {
			t.Errorf("classifyClass(%s) = %d, want %d", tc.class, got, tc.want)
		}
	}
	e := remoteErrorFromClass(excNoSuchFamily, excNoSuchFamily+": Column family nope does not exist\n\tat X(X.java:1)", true, false)
	if !errors.Is(e, ErrNoSuchFamily) || e.Message != "Column family nope does not exist" || IsRetryable(e) {
		t.Errorf("remote error %+v", e)
	}
	if !strings.Contains(e.Error(), "NoSuchColumnFamilyException") {
		t.Errorf("Error() = %q", e.Error())
	}
	e = remoteErrorFromClass(excDoNotRetry, "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long, it's 3 bytes wide", true, false)
	if !errors.Is(e, ErrNotCounter) {
		t.Errorf("%v is not ErrNotCounter", e)
	}
	if h, p := parseRegionMoved("Region moved to: hostname=rs9 port=16020 startCode=17. As of locationSeqNum=3."); h != "rs9" || p != 16020 {
		t.Errorf("parseRegionMoved = %s:%d", h, p)
	}
}
