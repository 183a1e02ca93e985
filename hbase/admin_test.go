package hbase

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// closedClient is a Client that was closed: every call that passes
// validation fails with ErrClosed before reaching the network, so tests
// can tell what validation let through.
func closedClient(t *testing.T) *Client {
	t.Helper()
	o := defaultOptions()
	tel, err := newTelemetry(&o)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{opts: o, tel: tel, regions: newRegionCache(), done: make(chan struct{})}
	c.closed.Store(true)
	return c
}

func TestAdminValidatesBeforeRPC(t *testing.T) {
	fam := []FamilyDescriptor{{Name: "cf"}}
	good := TableDescriptor{Name: "ns:t", Families: fam}
	tests := []struct {
		name string
		call func(ctx context.Context, c *Client) error
		want error // ErrClosed: validation passed
		op   string
	}{
		{"create namespace: bad name", func(ctx context.Context, c *Client) error { return c.CreateNamespace(ctx, "a-b") }, ErrInvalidNamespace, "create namespace"},
		{"create namespace: empty", func(ctx context.Context, c *Client) error { return c.CreateNamespace(ctx, "") }, ErrInvalidNamespace, "create namespace"},
		{"create namespace: ok", func(ctx context.Context, c *Client) error { return c.CreateNamespace(ctx, "ns_1") }, ErrClosed, ""},
		{"delete namespace: default", func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "default") }, ErrInvalidNamespace, "delete namespace"},
		{"delete namespace: hbase", func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "hbase") }, ErrInvalidNamespace, "delete namespace"},
		{"delete namespace: bad name", func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "x:y") }, ErrInvalidNamespace, "delete namespace"},
		{"delete namespace: ok", func(ctx context.Context, c *Client) error { return c.DeleteNamespace(ctx, "ns") }, ErrClosed, ""},
		{"list namespaces", func(ctx context.Context, c *Client) error { _, err := c.ListNamespaces(ctx); return err }, ErrClosed, ""},

		{"create table: empty name", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, TableDescriptor{Families: fam}, nil)
		}, ErrEmptyTableName, "create table"},
		{"create table: bad name", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, TableDescriptor{Name: "ns:-t", Families: fam}, nil)
		}, ErrInvalidTableName, "create table"},
		{"create table: bad namespace", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, TableDescriptor{Name: "n-s:t", Families: fam}, nil)
		}, ErrInvalidTableName, "create table"},
		{"create table: no family", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, TableDescriptor{Name: "t"}, nil)
		}, ErrEmptyFamily, "create table"},
		{"create table: empty family", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: ""}}}, nil)
		}, ErrEmptyFamily, "create table"},
		{"create table: duplicate family", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "a"}, {Name: "a"}}}, nil)
		}, ErrInvalidFamily, "create table"},
		{"create table: bad VERSIONS", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "a", Attributes: map[string]string{"VERSIONS": "x"}}}}, nil)
		}, ErrInvalidRequest, "create table"},
		{"create table: empty split key", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, good, [][]byte{[]byte("a"), {}})
		}, ErrInvalidSplitKeys, "create table"},
		{"create table: duplicate split keys", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, good, [][]byte{[]byte("b"), []byte("a"), []byte("b")})
		}, ErrInvalidSplitKeys, "create table"},
		{"create table: ok", func(ctx context.Context, c *Client) error {
			return c.CreateTable(ctx, good, [][]byte{[]byte("b"), []byte("a")})
		}, ErrClosed, ""},

		{"delete table: bad name", func(ctx context.Context, c *Client) error { return c.DeleteTable(ctx, "a b") }, ErrInvalidTableName, "delete table"},
		{"delete table: ok", func(ctx context.Context, c *Client) error { return c.DeleteTable(ctx, "t") }, ErrClosed, ""},
		{"enable table: empty", func(ctx context.Context, c *Client) error { return c.EnableTable(ctx, "") }, ErrEmptyTableName, "enable table"},
		{"enable table: ok", func(ctx context.Context, c *Client) error { return c.EnableTable(ctx, "t") }, ErrClosed, ""},
		{"disable table: bad name", func(ctx context.Context, c *Client) error { return c.DisableTable(ctx, ":t") }, ErrInvalidTableName, "disable table"},
		{"disable table: ok", func(ctx context.Context, c *Client) error { return c.DisableTable(ctx, "t") }, ErrClosed, ""},
		{"truncate table: bad name", func(ctx context.Context, c *Client) error { return c.TruncateTable(ctx, "ns:", true) }, ErrInvalidTableName, "truncate table"},
		{"truncate table: ok", func(ctx context.Context, c *Client) error { return c.TruncateTable(ctx, "t", false) }, ErrClosed, ""},
		{"modify table: no family", func(ctx context.Context, c *Client) error {
			return c.ModifyTable(ctx, TableDescriptor{Name: "t"})
		}, ErrEmptyFamily, "modify table"},
		{"modify table: ok", func(ctx context.Context, c *Client) error { return c.ModifyTable(ctx, good) }, ErrClosed, ""},
		{"table exists: bad name", func(ctx context.Context, c *Client) error { _, err := c.TableExists(ctx, "t/x"); return err }, ErrInvalidTableName, "table exists"},
		{"table exists: ok", func(ctx context.Context, c *Client) error { _, err := c.TableExists(ctx, "t"); return err }, ErrClosed, ""},
		{"is table enabled: bad name", func(ctx context.Context, c *Client) error { _, err := c.IsTableEnabled(ctx, ".t"); return err }, ErrInvalidTableName, "is table enabled"},
		{"is table enabled: ok", func(ctx context.Context, c *Client) error { _, err := c.IsTableEnabled(ctx, "t"); return err }, ErrClosed, ""},
		{"list tables: bad namespace", func(ctx context.Context, c *Client) error { _, err := c.ListTables(ctx, "a.b"); return err }, ErrInvalidNamespace, "list tables"},
		{"list tables: all", func(ctx context.Context, c *Client) error { _, err := c.ListTables(ctx, ""); return err }, ErrClosed, ""},
		{"describe table: bad name", func(ctx context.Context, c *Client) error { _, err := c.DescribeTable(ctx, "ns:t:x"); return err }, ErrInvalidTableName, "describe table"},
		{"describe table: ok", func(ctx context.Context, c *Client) error { _, err := c.DescribeTable(ctx, "t"); return err }, ErrClosed, ""},
		{"table regions: bad name", func(ctx context.Context, c *Client) error { _, err := c.TableRegions(ctx, ""); return err }, ErrEmptyTableName, "table regions"},
		{"table regions: ok", func(ctx context.Context, c *Client) error { _, err := c.TableRegions(ctx, "t"); return err }, ErrClosed, ""},
		{"split region: empty key", func(ctx context.Context, c *Client) error { return c.SplitRegion(ctx, "t", nil) }, ErrInvalidSplitKeys, "split region"},
		{"split region: key too long", func(ctx context.Context, c *Client) error {
			return c.SplitRegion(ctx, "t", make([]byte, MaxRowLength+1))
		}, ErrInvalidSplitKeys, "split region"},
		{"split region: bad name", func(ctx context.Context, c *Client) error { return c.SplitRegion(ctx, "-t", []byte("k")) }, ErrInvalidTableName, "split region"},
		{"split region: ok", func(ctx context.Context, c *Client) error { return c.SplitRegion(ctx, "t", []byte("k")) }, ErrClosed, ""},
	}
	c := closedClient(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(t.Context(), c)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.want)
			}
			var ie *InvalidRequestError
			isInvalid := errors.As(err, &ie)
			if tt.want == ErrClosed {
				if isInvalid {
					t.Errorf("valid request rejected: %v", err)
				}
				return
			}
			if !isInvalid {
				t.Fatalf("err = %T %v, want an *InvalidRequestError", err, err)
			}
			if ie.Op != tt.op {
				t.Errorf("Op = %q, want %q (%v)", ie.Op, tt.op, err)
			}
			if IsRetryable(err) {
				t.Errorf("validation error %v is retryable", err)
			}
		})
	}
}

func TestAdminErr(t *testing.T) {
	remote := remoteErrorFromClass(excTableNotFound, "ns:t", true, false)
	err := adminErr("describe table", "ns:t", remote)
	if !errors.Is(err, ErrTableNotFound) {
		t.Errorf("adminErr = %v, want errors.Is ErrTableNotFound", err)
	}
	var re *RemoteError
	if !errors.As(err, &re) || re.Class != excTableNotFound {
		t.Errorf("adminErr lost the remote error: %v", err)
	}
	if !strings.Contains(err.Error(), `describe table "ns:t"`) {
		t.Errorf("adminErr message %q does not name the operation and table", err)
	}
	inv := invalid("create table", "Table", ErrEmptyTableName, "")
	if got := adminErr("create table", "", inv); got != inv {
		t.Errorf("adminErr re-wrapped a validation error: %v", got)
	}
	if adminErr("x", "y", nil) != nil {
		t.Errorf("adminErr(nil) != nil")
	}
}

func TestSplitTarget(t *testing.T) {
	mk := func(start, end string) *region {
		return &region{table: "t", start: []byte(start), end: []byte(end)}
	}
	regions := []*region{mk("", "g"), mk("g", "m"), mk("m", "")}
	tests := []struct {
		name      string
		regions   []*region
		key       string
		wantStart string
		wantErr   error
	}{
		{"first region", regions, "c", "", nil},
		{"middle region", regions, "h", "g", nil},
		{"last region", regions, "zz", "m", nil},
		{"inside, just after a boundary", regions, "g\x00", "g", nil},
		{"region start key", regions, "m", "", ErrInvalidSplitKeys},
		{"hole in meta", []*region{mk("", "g"), mk("m", "")}, "h", "", errRegionNotReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := splitTarget("split region", tt.regions, []byte(tt.key))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("splitTarget(%q) = %v, want %v", tt.key, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("splitTarget(%q): %v", tt.key, err)
			}
			if string(r.start) != tt.wantStart {
				t.Errorf("splitTarget(%q) = region at %q, want %q", tt.key, r.start, tt.wantStart)
			}
		})
	}
}

func TestIsNamespaceNotEmpty(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"RPC refusal", remoteErrorFromClass(excConstraint, "Only empty namespaces can be removed. Namespace ns has 1 tables", true, false), true},
		{"procedure refusal", &ProcedureError{ProcID: 1, Err: remoteErrorFromClass(excConstraint, "Only empty namespaces can be removed. Namespace ns has 2 tables", true, false)}, true},
		{"other constraint", remoteErrorFromClass(excConstraint, "Reserved namespace default cannot be removed.", true, false), false},
		{"other class", remoteErrorFromClass(excTableNotFound, "empty namespaces", true, false), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isNamespaceNotEmpty(tt.err); got != tt.want {
				t.Errorf("isNamespaceNotEmpty(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
