package hbase

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// secretRow is a row key no error may quote.
const secretRow = "+4915112345678"

// valueOfCell returns a value that makes a cell of row, family "cf" and
// qualifier "q" exactly size bytes as CellSize counts them.
func valueOfCell(row string, size int) []byte {
	return make([]byte, size-CellSize([]byte(row), "cf", "q", nil))
}

func TestCheckWriteSize(t *testing.T) {
	row := []byte(secretRow)
	at := valueOfCell(secretRow, DefaultMaxCellSize)
	over := valueOfCell(secretRow, DefaultMaxCellSize+1)
	big := make([]byte, 9<<20) // 30 cells of it: one mutation over MaxRequestSize
	wide := map[string][]byte{}
	for i := range 30 {
		wide[fmt.Sprintf("q%02d", i)] = big
	}
	put := func(v []byte) *Put {
		return &Put{Table: "t", Row: row, Values: map[string]map[string][]byte{"cf": {"q": v, "a": []byte("x")}}}
	}
	tests := []struct {
		name      string
		req       any
		limit     int
		want      error
		wantField string
	}{
		{"put at the limit", put(at), DefaultMaxCellSize, nil, ""},
		{"put over the limit", put(over), DefaultMaxCellSize, ErrCellTooLarge, `Values["cf"]["q"]`},
		{"put of 20 MB", put(make([]byte, 20<<20)), DefaultMaxCellSize, ErrCellTooLarge, `Values["cf"]["q"]`},
		{"no limit", put(over), 0, nil, ""},
		{"append over", &Append{Table: "t", Row: row, Values: map[string]map[string][]byte{"cf": {"q": over}}}, DefaultMaxCellSize, ErrCellTooLarge, `Values["cf"]["q"]`},
		{"check and mutate over", &CheckAndMutate{Table: "t", Row: row, Family: []byte("cf"), Qualifier: []byte("q"),
			Mutations: []Mutation{&Delete{Table: "t", Row: row}, put(over)}}, DefaultMaxCellSize, ErrCellTooLarge, `Mutations[1].Values["cf"]["q"]`},
		{"mutate row over", &RowMutations{Table: "t", Row: row, Mutations: []Mutation{put(over)}}, DefaultMaxCellSize, ErrCellTooLarge, `Mutations[0].Values["cf"]["q"]`},
		{"mutation over the request size", &Put{Table: "t", Row: row, Values: map[string]map[string][]byte{"cf": wide}}, DefaultMaxCellSize, ErrRequestTooLarge, ""},
		{"get", &Get{Table: "t", Row: row}, 1, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckWriteSize(tc.req, tc.limit)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("CheckWriteSize = %v, want %v", err, tc.want)
			}
			if err == nil {
				return
			}
			var ie *InvalidRequestError
			if !errors.As(err, &ie) || ie.Field != tc.wantField {
				t.Errorf("error %v: want an *InvalidRequestError with Field %s", err, tc.wantField)
			}
			if strings.Contains(err.Error(), secretRow) {
				t.Errorf("error %q quotes the row key", err)
			}
		})
	}
}

// TestClientRefusesLargeCells: Put, Batch and the others refuse a cell
// over WithMaxCellSize before sending anything.
func TestClientRefusesLargeCells(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client(WithMaxCellSize(1000))
	ctx := testCtx(t)
	row := []byte(secretRow)
	over := valueOfCell(secretRow, 1001)
	vals := map[string]map[string][]byte{"cf": {"q": over}}
	err := c.Put(ctx, &Put{Table: "t", Row: row, Values: vals})
	if !errors.Is(err, ErrCellTooLarge) || strings.Contains(err.Error(), secretRow) {
		t.Errorf("Put = %v, want ErrCellTooLarge without the row", err)
	}
	_, err = c.Append(ctx, &Append{Table: "t", Row: row, Values: vals})
	if !errors.Is(err, ErrCellTooLarge) {
		t.Errorf("Append = %v, want ErrCellTooLarge", err)
	}
	res, err := c.Batch(ctx, []Action{
		&Put{Table: "t", Row: row, Values: vals},
		&Put{Table: "t", Row: []byte("ok"), Values: map[string]map[string][]byte{"cf": {"q": valueOfCell("ok", 1000)}}},
	})
	var be *BatchError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Index != 0 || !errors.Is(res[0].Err, ErrCellTooLarge) || res[1].Err != nil {
		t.Fatalf("Batch = %v, %+v: want action 0 refused, 1 written", err, res)
	}
	var ie *InvalidRequestError
	if !errors.As(res[0].Err, &ie) || ie.Field != `Values["cf"]["q"]` || strings.Contains(err.Error(), secretRow) {
		t.Errorf("Batch error %v: want the column named, not the row", err)
	}
	for _, rows := range fc.multiRows() {
		for _, r := range rows {
			if r == secretRow {
				t.Errorf("the refused row was sent")
			}
		}
	}
	if n := fc.count("", "Mutate"); n != 0 {
		t.Errorf("%d Mutate calls, want none", n)
	}
}

// TestBatchBoundsMultiBytes: a Batch of large Puts goes in Multis of at
// most the write buffer (one Put alone when larger), every Put written.
func TestBatchBoundsMultiBytes(t *testing.T) {
	tests := []struct {
		name          string
		n, size       int
		buffer        int
		wantMultis    int
		wantMaxPerReq int
	}{
		{"50 of 3 MB, default buffer", 50, 3 << 20, DefaultWriteBufferSize, 50, 1},
		{"40 of 100 KB, default buffer", 40, 100 << 10, DefaultWriteBufferSize, 2, 20},
		{"10 of 1 KB, 4 KB buffer", 10, 1 << 10, 4 << 10, 4, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			c := fc.client(WithWriteBufferSize(tc.buffer))
			v := make([]byte, tc.size)
			var actions []Action
			for i := range tc.n {
				actions = append(actions, &Put{Table: "t", Row: fmt.Appendf(nil, "r%03d", i), Values: map[string]map[string][]byte{"cf": {"q": v}}})
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
			multis := fc.multis()
			if len(multis) != tc.wantMultis {
				t.Errorf("%d Multi requests, want %d", len(multis), tc.wantMultis)
			}
			for i, m := range multis {
				n, size := 0, 0
				for _, ra := range m.GetRegionAction() {
					n += len(ra.GetAction())
					size += proto.Size(ra)
				}
				if n > tc.wantMaxPerReq || (n > 1 && size > tc.buffer) {
					t.Errorf("Multi %d: %d actions, %d bytes; want at most %d actions and %d bytes", i, n, size, tc.wantMaxPerReq, tc.buffer)
				}
			}
		})
	}
}

// TestServerRefusalHidesRow: HBase's refusal of a large cell quotes the
// cell, row key included; the error a caller gets matches
// ErrCellTooLarge and does not quote the row.
func TestServerRefusalHidesRow(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client(WithMaxCellSize(0))
	msg := "Cell[" + secretRow + "/cf:q/1764265000000/Put/vlen=10485761/seqid=0] with size 10485799 exceeds limit of 10485760 bytes"
	fc.actionHook = func(addr string, reg *fakeRegion, a *pb.Action) *pb.NameBytesPair {
		if bytes.Equal(a.GetMutation().GetRow(), []byte(secretRow)) {
			return &pb.NameBytesPair{Name: proto.String(excDoNotRetry), Value: []byte(msg)}
		}
		return nil
	}
	res, err := c.Batch(testCtx(t), []Action{
		&Put{Table: "t", Row: []byte(secretRow), Values: map[string]map[string][]byte{"cf": {"q": []byte("v")}}},
		&Put{Table: "t", Row: []byte("other"), Values: map[string]map[string][]byte{"cf": {"q": []byte("v")}}},
	})
	if err == nil || res[1].Err != nil {
		t.Fatalf("Batch = %v, %+v", err, res)
	}
	if !errors.Is(res[0].Err, ErrCellTooLarge) || IsRetryable(res[0].Err) {
		t.Errorf("error %v: want ErrCellTooLarge, not retryable", res[0].Err)
	}
	if strings.Contains(err.Error(), secretRow) || strings.Contains(res[0].Err.Error(), secretRow) {
		t.Errorf("error %q quotes the row key", err)
	}
	if !strings.Contains(err.Error(), "with size 10485799 exceeds limit of 10485760 bytes") {
		t.Errorf("error %q lost the sizes", err)
	}
}

// TestServerRequestLimitError: HBase 2.6.4's refusal of a request over
// hbase.ipc.max.request.size (as TestIntegrationServerRequestLimit saw
// it) matches ErrRequestTooLarge and is not retryable.
func TestServerRequestLimitError(t *testing.T) {
	msg := `RPC data length of 268435457 received from 127.0.0.1 is greater than max allowed 268435456. Set "hbase.ipc.max.request.size" on server to override this limit (not recommended)`
	for _, class := range []string{excDoNotRetry, excRequestTooBig} {
		e := remoteErrorFromClass(class, msg, true, false)
		if !errors.Is(e, ErrRequestTooLarge) || IsRetryable(e) {
			t.Errorf("%s: %v: want ErrRequestTooLarge, not retryable", class, e)
		}
	}
}

func TestRedactRows(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Cell[" + secretRow + "/cf:q/1/Put/vlen=3/seqid=0] with size 40 exceeds limit of 30 bytes",
			"Cell[…] with size 40 exceeds limit of 30 bytes"},
		{"Column family nope does not exist in region t," + secretRow + ",1764265000000.0123456789abcdef0123456789abcdef. in table 't'",
			"Column family nope does not exist in region t,…,1764265000000.0123456789abcdef0123456789abcdef. in table 't'"},
		{"Requested row out of range for doMiniBatchMutation on HRegion x, startKey='" + secretRow + "', getEndKey()='', row='" + secretRow + "'",
			"Requested row out of range for doMiniBatchMutation on HRegion x, startKey=…, getEndKey()=…, row=…"},
		{"Timestamp for KV out of range Cell[" + secretRow + "/cf:q/9/Put/vlen=1/seqid=0] (too.new=100)",
			"Timestamp for KV out of range Cell[…] (too.new=100)"},
		{"plain message", "plain message"},
		{"Region moved to: hostname=h port=16020 startCode=17. As of locationSeqNum=5.", "Region moved to: hostname=h port=16020 startCode=17. As of locationSeqNum=5."},
		{"borrow=x narrow=y", "borrow=x narrow=y"},
	}
	for _, tc := range tests {
		if got := remoteErrorFromClass(excDoNotRetry, tc.in, true, false).Message; got != tc.want {
			t.Errorf("redacted %q\n got  %q\n want %q", tc.in, got, tc.want)
		}
	}
}

// TestCoalescedWritesBoundMultiBytes: single-row Puts queued while the
// server is busy go out in Multis of at most the write buffer, a larger
// Put alone.
func TestCoalescedWritesBoundMultiBytes(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client(WithWriteBufferSize(4 << 10))
	ctx := testCtx(t)
	release, inFlight := fillInFlight(t, fc, c)
	var ps []*Put
	for i := range 6 {
		size := 1 << 10
		if i == 5 {
			size = 8 << 10 // over the buffer: alone
		}
		ps = append(ps, &Put{Table: "t", Row: fmt.Appendf(nil, "q%d", i), Values: map[string]map[string][]byte{"cf": {"q": make([]byte, size)}}})
	}
	queued := putConcurrently(ctx, c, ps...)
	waitQueued(t, c, "rs1:16020", len(ps))
	release()
	for i, err := range append(queued(), inFlight()...) {
		if err != nil {
			t.Errorf("Put %d: %v", i, err)
		}
	}
	multis := fc.multis()
	if len(multis) < 3 {
		t.Errorf("%d Multis for 5 Puts of 1 KiB and one of 8 KiB with a 4 KiB buffer, want at least 3", len(multis))
	}
	for i, m := range multis {
		n, size := 0, 0
		for _, ra := range m.GetRegionAction() {
			n += len(ra.GetAction())
			size += proto.Size(ra)
		}
		if n > 1 && size > 4<<10 {
			t.Errorf("Multi %d: %d actions, %d bytes over the 4 KiB buffer", i, n, size)
		}
	}
}
