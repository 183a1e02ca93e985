//go:build integration

package hbase

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// TestIntegrationServerRequestLimit pins what HBase does with a request
// over its hbase.ipc.max.request.size (default MaxRequestSize, 256 MiB),
// which a Client never sends (it refuses such a mutation with
// ErrRequestTooLarge, and its connections refuse such a frame): on a raw
// connection, a Multi whose frame announces MaxRequestSize+1 bytes (only
// its head is sent) is answered with a DoNotRetryIOException naming
// hbase.ipc.max.request.size (not a RequestTooBigException), which maps
// to ErrRequestTooLarge, and the server stays up.
func TestIntegrationServerRequestLimit(t *testing.T) {
	zkq := os.Getenv("HBKIT_ZK")
	if zkq == "" {
		zkq = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := New(ctx, zkq)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	table := fmt.Sprintf("it_request_limit_%d", time.Now().UnixNano())
	if err := c.CreateTable(ctx, TableDescriptor{Name: table, Families: []FamilyDescriptor{{Name: "cf"}}}, nil); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.DisableTable(context.Background(), table)
		_ = c.DeleteTable(context.Background(), table)
	}()
	row := []byte("+4915112345678")
	big, wide := make([]byte, 9<<20), map[string][]byte{}
	for i := range 30 {
		wide[fmt.Sprintf("q%02d", i)] = big
	}
	if err := c.Put(ctx, &Put{Table: table, Row: row, Values: map[string]map[string][]byte{"cf": wide}}); !errors.Is(err, ErrRequestTooLarge) {
		t.Fatalf("Client.Put of 270 MiB = %v, want ErrRequestTooLarge before sending", err)
	}
	r, err := c.locate(ctx, canonicalTable(table), row, false)
	if err != nil {
		t.Fatal(err)
	}
	class, msg := tooBigRequest(t, ctx, r.addr, MaxRequestSize+1)
	re := remoteErrorFromClass(class, msg, false, false)
	t.Logf("HBase's answer to a frame of %d bytes: %s: %s", MaxRequestSize+1, class, msg)
	if class != excDoNotRetry || !errors.Is(re, ErrRequestTooLarge) || IsRetryable(re) {
		t.Errorf("answer %s (%v): want DoNotRetryIOException, ErrRequestTooLarge, not retryable", class, re)
	}
	if err := c.Put(ctx, &Put{Table: table, Row: row, Values: map[string]map[string][]byte{"cf": {"q": []byte("v")}}}); err != nil {
		t.Errorf("Put after the refusal: %v", err)
	}
}

// tooBigRequest opens a connection to the region server at addr, sends
// the head of a Multi whose frame announces size bytes, and returns the
// exception class and message of the answer.
func tooBigRequest(t *testing.T, ctx context.Context, addr string, size int) (string, string) {
	t.Helper()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	b, err := rpc.AppendHandshake(nil, &pb.ConnectionHeader{
		UserInfo: &pb.UserInformation{EffectiveUser: proto.String("hbkit")}, ServiceName: proto.String(rpc.ClientService)})
	if err != nil {
		t.Fatal(err)
	}
	start := len(b)
	b, err = rpc.AppendRequest(b, &pb.RequestHeader{CallId: proto.Uint32(7), MethodName: proto.String("Multi"), RequestParam: proto.Bool(true)},
		&pb.MultiRequest{})
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(size))
	if _, err := nc.Write(b); err != nil {
		t.Fatal(err)
	}
	frame, err := rpc.ReadFrame(nc, 1<<20)
	if err != nil {
		t.Fatalf("no answer to a frame of %d bytes: %v", size, err)
	}
	resp, err := rpc.DecodeResponse(frame)
	if err != nil {
		t.Fatal(err)
	}
	x := resp.Header.GetException()
	if resp.Header.GetCallId() != 7 || x == nil {
		t.Fatalf("answer %v: want an exception for call 7", resp.Header)
	}
	msg, _, _ := strings.Cut(x.GetStackTrace(), "\n")
	return x.GetExceptionClassName(), msg
}
