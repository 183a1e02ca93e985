package hbase

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// fakeMaster is an in-process MasterService speaking HBase's RPC framing
// over net.Pipe. It records every call and answers through handle, so
// tests see exactly what the admin code sends and how it reacts to each
// answer, without a cluster.
type fakeMaster struct {
	t      testing.TB
	handle func(method string, param []byte) (proto.Message, *pb.ExceptionResponse)

	mu    sync.Mutex
	calls []masterCallRecord
}

type masterCallRecord struct {
	method string
	param  []byte
}

func newFakeMaster(t testing.TB, handle func(method string, param []byte) (proto.Message, *pb.ExceptionResponse)) *fakeMaster {
	return &fakeMaster{t: t, handle: handle}
}

func (m *fakeMaster) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	client, server := net.Pipe()
	go m.serve(server)
	return client, nil
}

// methods returns the names of the calls received so far, in order.
func (m *fakeMaster) methods() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, c := range m.calls {
		out = append(out, c.method)
	}
	return out
}

// param decodes the parameter of the i-th call named method into msg.
func (m *fakeMaster) param(method string, i int, msg proto.Message) {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.calls {
		if c.method != method {
			continue
		}
		if n == i {
			if err := proto.Unmarshal(c.param, msg); err != nil {
				m.t.Fatalf("%s param: %v", method, err)
			}
			return
		}
		n++
	}
	m.t.Fatalf("no call %d of %s (calls: %v)", i, method, m.calls)
}

func (m *fakeMaster) serve(nc net.Conn) {
	serveTestConn(m.t, "fake master", nc, func(hdr *pb.RequestHeader, param []byte, reply func(proto.Message, *pb.ExceptionResponse)) {
		m.mu.Lock()
		m.calls = append(m.calls, masterCallRecord{method: hdr.GetMethodName(), param: slices.Clone(param)})
		m.mu.Unlock()
		reply(m.handle(hdr.GetMethodName(), param))
	})
}

func masterException(class, msg string, doNotRetry bool) *pb.ExceptionResponse {
	return &pb.ExceptionResponse{
		ExceptionClassName: proto.String(class),
		StackTrace:         proto.String(class + ": " + msg + "\n\tat org.apache.hadoop.hbase.Frame(Frame.java:1)"),
		DoNotRetry:         proto.Bool(doNotRetry),
	}
}

// fakeMasterClient returns a Client whose master is m. The master address
// is cached; when the client forgets it (a connection error, PleaseHold,
// ...), its ZooKeeper names the same master again.
func fakeMasterClient(t *testing.T, m *fakeMaster) *Client {
	t.Helper()
	o := defaultOptions()
	o.backoffBase, o.backoffMax = time.Millisecond, 5*time.Millisecond
	tel, err := newTelemetry(&o)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := rpc.NewPool(rpc.WithDialFunc(m.dial), rpc.WithUser("hbkit-test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return &Client{
		opts:       o,
		pool:       pool,
		tel:        tel,
		regions:    newRegionCache(),
		nonceGroup: 0x5eed,
		done:       make(chan struct{}),
		masterAddr: "master.test:16000",
		zk:         &countingZK{masters: []string{"master.test:16000"}},
	}
}

// procScript answers getProcedureResult: RUNNING for the first polls,
// then last.
type procScript struct {
	running int
	last    *pb.GetProcedureResultResponse
}

// ddlMaster answers every DDL call with procedure id 100+n and runs the
// procedures per scripts (default: finished at once). Calls listed in
// fail get the exception instead.
func ddlMaster(t *testing.T, scripts map[uint64]*procScript, fail map[string]*pb.ExceptionResponse) *fakeMaster {
	var mu sync.Mutex
	next := uint64(100)
	polls := map[uint64]int{}
	return newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
		mu.Lock()
		defer mu.Unlock()
		if exc := fail[method]; exc != nil {
			return nil, exc
		}
		switch method {
		case "getProcedureResult":
			var req pb.GetProcedureResultRequest
			if err := proto.Unmarshal(param, &req); err != nil {
				return nil, masterException(excDoNotRetry, err.Error(), true)
			}
			id := req.GetProcId()
			polls[id]++
			s := scripts[id]
			if s == nil {
				s = &procScript{last: procState(pb.GetProcedureResultResponse_FINISHED)}
			}
			if polls[id] <= s.running {
				return procState(pb.GetProcedureResultResponse_RUNNING), nil
			}
			return s.last, nil
		case "CreateTable":
			next++
			return &pb.CreateTableResponse{ProcId: proto.Uint64(next)}, nil
		case "DeleteTable":
			next++
			return &pb.DeleteTableResponse{ProcId: proto.Uint64(next)}, nil
		case "EnableTable":
			next++
			return &pb.EnableTableResponse{ProcId: proto.Uint64(next)}, nil
		case "DisableTable":
			next++
			return &pb.DisableTableResponse{ProcId: proto.Uint64(next)}, nil
		case "truncateTable":
			next++
			return &pb.TruncateTableResponse{ProcId: proto.Uint64(next)}, nil
		case "ModifyTable":
			next++
			return &pb.ModifyTableResponse{ProcId: proto.Uint64(next)}, nil
		case "CreateNamespace":
			next++
			return &pb.CreateNamespaceResponse{ProcId: proto.Uint64(next)}, nil
		case "DeleteNamespace":
			next++
			return &pb.DeleteNamespaceResponse{ProcId: proto.Uint64(next)}, nil
		}
		return nil, masterException("org.apache.hadoop.hbase.exceptions.UnknownProtocolException", "no method "+method, true)
	})
}

func TestAdminCreateTableRequest(t *testing.T) {
	m := ddlMaster(t, map[uint64]*procScript{101: {running: 2, last: procState(pb.GetProcedureResultResponse_FINISHED)}}, nil)
	c := fakeMasterClient(t, m)
	desc := TableDescriptor{
		Name:       "crm:calls",
		Attributes: map[string]string{"MAX_FILESIZE": "1073741824"},
		Families: []FamilyDescriptor{
			{Name: "m"},
			{Name: "d", Attributes: map[string]string{"VERSIONS": "3", "BLOOMFILTER": "row", "COMPRESSION": "snappy", "IN_MEMORY": "FALSE"}},
		},
	}
	splits := [][]byte{[]byte("c"), []byte("4"), []byte("8")}
	if err := c.CreateTable(t.Context(), desc, splits); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if got, want := m.methods(), []string{"CreateTable", "getProcedureResult", "getProcedureResult", "getProcedureResult"}; !slices.Equal(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
	var req pb.CreateTableRequest
	m.param("CreateTable", 0, &req)
	s := req.GetTableSchema()
	if ns, q := string(s.GetTableName().GetNamespace()), string(s.GetTableName().GetQualifier()); ns != "crm" || q != "calls" {
		t.Errorf("table name = %s:%s, want crm:calls", ns, q)
	}
	if got := fmt.Sprintf("%q", req.GetSplitKeys()); got != `["4" "8" "c"]` {
		t.Errorf("split keys = %s, want sorted [4 8 c]", got)
	}
	if req.GetNonceGroup() != 0x5eed || req.GetNonce() == 0 {
		t.Errorf("nonce group %x, nonce %d; want the client's group and a nonce", req.GetNonceGroup(), req.GetNonce())
	}
	if got := adminPairs(s.GetAttributes()); fmt.Sprint(got) != "[[MAX_FILESIZE 1073741824]]" {
		t.Errorf("table attributes = %q", got)
	}
	fams := s.GetColumnFamilies()
	if len(fams) != 2 || string(fams[0].GetName()) != "d" || string(fams[1].GetName()) != "m" {
		t.Fatalf("families = %v, want d, m", fams)
	}
	want := [][2]string{{"BLOOMFILTER", "ROW"}, {"COMPRESSION", "SNAPPY"}, {"IN_MEMORY", "false"}, {"VERSIONS", "3"}}
	if got := adminPairs(fams[0].GetAttributes()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("family d attributes = %q, want %q", got, want)
	}
	var poll pb.GetProcedureResultRequest
	m.param("getProcedureResult", 2, &poll)
	if poll.GetProcId() != 101 {
		t.Errorf("polled procedure %d, want 101", poll.GetProcId())
	}
}

// A resend after a retryable failure carries the same nonce, so that the
// master can tell it from a new request.
func TestAdminRetryKeepsNonce(t *testing.T) {
	attempts := 0
	m := newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
		switch method {
		case "DeleteTable":
			attempts++
			if attempts == 1 {
				return nil, masterException(excPleaseHold, "master is initializing", false)
			}
			return &pb.DeleteTableResponse{ProcId: proto.Uint64(5)}, nil
		case "getProcedureResult":
			return procState(pb.GetProcedureResultResponse_NOT_FOUND), nil
		}
		return nil, masterException(excDoNotRetry, "unexpected "+method, true)
	})
	c := fakeMasterClient(t, m)
	if err := c.DeleteTable(t.Context(), "t"); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	var first, second pb.DeleteTableRequest
	m.param("DeleteTable", 0, &first)
	m.param("DeleteTable", 1, &second)
	if first.GetNonce() == 0 || first.GetNonce() != second.GetNonce() || first.GetNonceGroup() != second.GetNonceGroup() {
		t.Errorf("nonces %d/%d, groups %x/%x; want one non-zero nonce reused", first.GetNonce(), second.GetNonce(), first.GetNonceGroup(), second.GetNonceGroup())
	}
	if ns := string(first.GetTableName().GetNamespace()); ns != "default" {
		t.Errorf("namespace on the wire = %q, want default", ns)
	}
	// A new operation draws a new nonce.
	if err := c.DeleteTable(t.Context(), "t"); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	var third pb.DeleteTableRequest
	m.param("DeleteTable", 2, &third)
	if third.GetNonce() == first.GetNonce() {
		t.Errorf("second DeleteTable reused nonce %d", third.GetNonce())
	}
}

func TestAdminRequests(t *testing.T) {
	tests := []struct {
		name   string
		call   func(ctx context.Context, c *Client) error
		method string
		check  func(t *testing.T, m *fakeMaster)
	}{
		{
			name:   "truncate keeping splits",
			call:   func(ctx context.Context, c *Client) error { return c.TruncateTable(ctx, "ns:t", true) },
			method: "truncateTable",
			check: func(t *testing.T, m *fakeMaster) {
				var req pb.TruncateTableRequest
				m.param("truncateTable", 0, &req)
				if req.PreserveSplits == nil || !req.GetPreserveSplits() || string(req.GetTableName().GetQualifier()) != "t" {
					t.Errorf("request = %v, want preserveSplits true for ns:t", &req)
				}
			},
		},
		{
			name:   "truncate dropping splits",
			call:   func(ctx context.Context, c *Client) error { return c.TruncateTable(ctx, "t", false) },
			method: "truncateTable",
			check: func(t *testing.T, m *fakeMaster) {
				var req pb.TruncateTableRequest
				m.param("truncateTable", 0, &req)
				if req.GetPreserveSplits() {
					t.Errorf("preserveSplits = true, want false")
				}
			},
		},
		{
			name:   "enable",
			call:   func(ctx context.Context, c *Client) error { return c.EnableTable(ctx, "default:t") },
			method: "EnableTable",
		},
		{
			name:   "disable",
			call:   func(ctx context.Context, c *Client) error { return c.DisableTable(ctx, "t") },
			method: "DisableTable",
		},
		{
			name: "modify",
			call: func(ctx context.Context, c *Client) error {
				return c.ModifyTable(ctx, TableDescriptor{Name: "ns:t", Families: []FamilyDescriptor{{Name: "f"}}})
			},
			method: "ModifyTable",
			check: func(t *testing.T, m *fakeMaster) {
				var req pb.ModifyTableRequest
				m.param("ModifyTable", 0, &req)
				if string(req.GetTableName().GetQualifier()) != "t" || string(req.GetTableSchema().GetTableName().GetNamespace()) != "ns" ||
					len(req.GetTableSchema().GetColumnFamilies()) != 1 {
					t.Errorf("request = %v", &req)
				}
			},
		},
		{
			name:   "create namespace",
			call:   func(ctx context.Context, c *Client) error { return c.CreateNamespace(ctx, "ns1") },
			method: "CreateNamespace",
			check: func(t *testing.T, m *fakeMaster) {
				var req pb.CreateNamespaceRequest
				m.param("CreateNamespace", 0, &req)
				if string(req.GetNamespaceDescriptor().GetName()) != "ns1" || req.GetNonce() == 0 {
					t.Errorf("request = %v", &req)
				}
			},
		},
		{
			name:   "delete namespace",
			call:   func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "ns1") },
			method: "DeleteNamespace",
			check: func(t *testing.T, m *fakeMaster) {
				var req pb.DeleteNamespaceRequest
				m.param("DeleteNamespace", 0, &req)
				if req.GetNamespaceName() != "ns1" {
					t.Errorf("request = %v", &req)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ddlMaster(t, nil, nil)
			c := fakeMasterClient(t, m)
			if err := tt.call(t.Context(), c); err != nil {
				t.Fatalf("call: %v", err)
			}
			if got, want := m.methods(), []string{tt.method, "getProcedureResult"}; !slices.Equal(got, want) {
				t.Errorf("calls = %v, want %v", got, want)
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

func TestAdminErrorMapping(t *testing.T) {
	failedProc := func(class, msg string) map[uint64]*procScript {
		return map[uint64]*procScript{101: {running: 1, last: procFailed(class, msg)}}
	}
	tests := []struct {
		name    string
		scripts map[uint64]*procScript
		fail    map[string]*pb.ExceptionResponse
		call    func(ctx context.Context, c *Client) error
		want    error
	}{
		{
			name: "create: table exists (RPC)",
			fail: map[string]*pb.ExceptionResponse{"CreateTable": masterException(excTableExists, "t", true)},
			call: func(ctx context.Context, c *Client) error {
				return c.CreateTable(ctx, TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "f"}}}, nil)
			},
			want: ErrTableExists,
		},
		{
			name: "create: namespace not found (RPC)",
			fail: map[string]*pb.ExceptionResponse{"CreateTable": masterException(excNamespaceNotFound, "nope", true)},
			call: func(ctx context.Context, c *Client) error {
				return c.CreateTable(ctx, TableDescriptor{Name: "nope:t", Families: []FamilyDescriptor{{Name: "f"}}}, nil)
			},
			want: ErrNamespaceNotFound,
		},
		{
			name:    "enable: not disabled (procedure)",
			scripts: failedProc(excTableNotDisabled, "tableName=t, state=ENABLED"),
			call:    func(ctx context.Context, c *Client) error { return c.EnableTable(ctx, "t") },
			want:    ErrTableNotDisabled,
		},
		{
			name: "disable: not enabled (RPC)",
			fail: map[string]*pb.ExceptionResponse{"DisableTable": masterException(excTableNotEnabled, "t", true)},
			call: func(ctx context.Context, c *Client) error { return c.DisableTable(ctx, "t") },
			want: ErrTableDisabled,
		},
		{
			name: "delete: not disabled (RPC)",
			fail: map[string]*pb.ExceptionResponse{"DeleteTable": masterException(excTableNotDisabled, "Not DISABLED; tableName=t, state=ENABLED", true)},
			call: func(ctx context.Context, c *Client) error { return c.DeleteTable(ctx, "t") },
			want: ErrTableNotDisabled,
		},
		{
			name: "modify: not found (RPC)",
			fail: map[string]*pb.ExceptionResponse{"ModifyTable": masterException(excTableNotFound, "t", true)},
			call: func(ctx context.Context, c *Client) error {
				return c.ModifyTable(ctx, TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "f"}}})
			},
			want: ErrTableNotFound,
		},
		{
			name: "create namespace: exists (RPC)",
			fail: map[string]*pb.ExceptionResponse{"CreateNamespace": masterException(excNamespaceExists, "Namespace ns already exists", true)},
			call: func(ctx context.Context, c *Client) error { return c.CreateNamespace(ctx, "ns") },
			want: ErrNamespaceExists,
		},
		{
			name: "delete namespace: not empty (RPC)",
			fail: map[string]*pb.ExceptionResponse{"DeleteNamespace": masterException(excConstraint, "Only empty namespaces can be removed. Namespace ns has 1 tables", true)},
			call: func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "ns") },
			want: ErrNamespaceNotEmpty,
		},
		{
			name:    "delete namespace: not empty (procedure)",
			scripts: failedProc(excConstraint, "Only empty namespaces can be removed. Namespace ns has 1 tables"),
			call:    func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "ns") },
			want:    ErrNamespaceNotEmpty,
		},
		{
			name: "delete namespace: not found (RPC)",
			fail: map[string]*pb.ExceptionResponse{"DeleteNamespace": masterException(excNamespaceNotFound, "ns", true)},
			call: func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "ns") },
			want: ErrNamespaceNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fakeMasterClient(t, ddlMaster(t, tt.scripts, tt.fail))
			err := tt.call(t.Context(), c)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if IsRetryable(err) {
				t.Errorf("IsRetryable(%v) = true", err)
			}
		})
	}
}

func TestAdminReads(t *testing.T) {
	schema := &pb.TableSchema{
		TableName: &pb.TableName{Namespace: []byte("ns"), Qualifier: []byte("t")},
		ColumnFamilies: []*pb.ColumnFamilySchema{{
			Name:       []byte("cf"),
			Attributes: []*pb.BytesBytesPair{adminBBP("VERSIONS", "3"), adminBBP("COMPRESSION", "SNAPPY")},
		}},
	}
	m := newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
		switch method {
		case "GetTableDescriptors":
			var req pb.GetTableDescriptorsRequest
			_ = proto.Unmarshal(param, &req)
			resp := &pb.GetTableDescriptorsResponse{}
			for _, tn := range req.GetTableNames() {
				if string(tn.GetNamespace()) == "ns" && string(tn.GetQualifier()) == "t" {
					resp.TableSchema = append(resp.TableSchema, schema)
				}
			}
			return resp, nil
		case "GetTableState":
			var req pb.GetTableStateRequest
			_ = proto.Unmarshal(param, &req)
			switch string(req.GetTableName().GetQualifier()) {
			case "t":
				return &pb.GetTableStateResponse{TableState: &pb.TableState{State: pb.TableState_ENABLED.Enum()}}, nil
			case "off":
				return &pb.GetTableStateResponse{TableState: &pb.TableState{State: pb.TableState_DISABLING.Enum()}}, nil
			}
			return nil, masterException(excTableNotFound, "No state found", true)
		case "GetTableNames":
			var req pb.GetTableNamesRequest
			_ = proto.Unmarshal(param, &req)
			if req.GetNamespace() == "missing" {
				return nil, masterException(excNamespaceNotFound, "missing", true)
			}
			all := []*pb.TableName{
				{Namespace: []byte("ns"), Qualifier: []byte("t")},
				{Namespace: []byte("default"), Qualifier: []byte("b")},
				{Namespace: []byte("default"), Qualifier: []byte("a")},
				{Namespace: []byte("hbase"), Qualifier: []byte("meta")},
			}
			resp := &pb.GetTableNamesResponse{}
			for _, tn := range all {
				if ns := req.GetNamespace(); ns != "" && string(tn.GetNamespace()) != ns {
					continue
				}
				if !req.GetIncludeSysTables() && string(tn.GetNamespace()) == "hbase" {
					continue
				}
				resp.TableNames = append(resp.TableNames, tn)
			}
			return resp, nil
		case "ListNamespaceDescriptors":
			return &pb.ListNamespaceDescriptorsResponse{NamespaceDescriptor: []*pb.NamespaceDescriptor{
				{Name: []byte("ns")}, {Name: []byte("hbase")}, {Name: []byte("default")},
			}}, nil
		}
		return nil, masterException(excDoNotRetry, "unexpected "+method, true)
	})
	c := fakeMasterClient(t, m)
	ctx := t.Context()

	d, err := c.DescribeTable(ctx, "ns:t")
	if err != nil || d.Name != "ns:t" || len(d.Families) != 1 || d.Families[0].Attributes["COMPRESSION"] != "SNAPPY" {
		t.Errorf("DescribeTable = %+v, %v", d, err)
	}
	_, err = c.DescribeTable(ctx, "ns:other")
	if !errors.Is(err, ErrTableNotFound) {
		t.Errorf("DescribeTable(missing) = %v, want ErrTableNotFound", err)
	}
	if ok, err := c.TableExists(ctx, "ns:t"); !ok || err != nil {
		t.Errorf("TableExists = %v, %v", ok, err)
	}
	if ok, err := c.TableExists(ctx, "t"); ok || err != nil {
		t.Errorf("TableExists(default:t) = %v, %v; want false", ok, err)
	}
	if ok, err := c.IsTableEnabled(ctx, "ns:t"); !ok || err != nil {
		t.Errorf("IsTableEnabled = %v, %v", ok, err)
	}
	if ok, err := c.IsTableEnabled(ctx, "off"); ok || err != nil {
		t.Errorf("IsTableEnabled(disabling) = %v, %v; want false", ok, err)
	}
	if _, err := c.IsTableEnabled(ctx, "gone"); !errors.Is(err, ErrTableNotFound) {
		t.Errorf("IsTableEnabled(missing) = %v, want ErrTableNotFound", err)
	}
	tests := []struct {
		ns   string
		want string
	}{
		{"", "[a b ns:t]"},
		{"default", "[a b]"},
		{"hbase", "[hbase:meta]"},
	}
	for _, tt := range tests {
		got, err := c.ListTables(ctx, tt.ns)
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("ListTables(%q) = %v, %v; want %s", tt.ns, got, err, tt.want)
		}
	}
	if _, err := c.ListTables(ctx, "missing"); !errors.Is(err, ErrNamespaceNotFound) {
		t.Errorf("ListTables(missing) = %v, want ErrNamespaceNotFound", err)
	}
	if nss, err := c.ListNamespaces(ctx); err != nil || fmt.Sprint(nss) != "[default hbase ns]" {
		t.Errorf("ListNamespaces = %v, %v", nss, err)
	}
}

// The caller's context bounds the wait for a procedure that never ends.
func TestAdminProcedureTimeout(t *testing.T) {
	m := ddlMaster(t, map[uint64]*procScript{101: {running: 1 << 30}}, nil)
	c := fakeMasterClient(t, m)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err := c.DisableTable(ctx, "t")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("DisableTable = %v, want context.DeadlineExceeded", err)
	}
	if n := len(m.methods()); n < 3 || n > 30 {
		t.Errorf("%d calls in 300ms: polling is too slow or too eager", n)
	}
}
