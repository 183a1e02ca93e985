package gohbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/hbase"
)

// The admin half. gohbase's AdminClient creates, deletes, enables,
// disables and lists tables, the table calls only in the default
// namespace (its requests name every table "default:NAME"). Table state
// and regions are read from hbase:meta through the data client, as
// gohbase itself locates regions. The rest fails with an
// *UnsupportedError.

// familyAttributes are the family attributes gohbase's CreateTable sends;
// it drops any other. hbaseDefaults are HBase's defaults where gohbase's
// differ (gohbase creates families with VERSIONS 3 and FAST_DIFF
// encoding): a family declared without them gets HBase's, as with the
// native client.
var (
	familyAttributes = []string{"BLOOMFILTER", "VERSIONS", "IN_MEMORY", "KEEP_DELETED_CELLS",
		"DATA_BLOCK_ENCODING", "TTL", "COMPRESSION", "MIN_VERSIONS", "BLOCKCACHE", "BLOCKSIZE", "REPLICATION_SCOPE"}
	hbaseDefaults = map[string]string{"VERSIONS": "1", "DATA_BLOCK_ENCODING": "NONE"}
)

func (c *Client) adminClient(op string) error {
	if c.admin == nil {
		return fmt.Errorf("gohbase adapter: %s: %w", op, ErrNoAdminClient)
	}
	return nil
}

// defaultNamespaceTable parses a table name for a gohbase admin call,
// which only reaches tables of the default namespace.
func defaultNamespaceTable(op, table string) (string, error) {
	tn, err := hbase.ParseTableName(table)
	if err != nil {
		return "", err
	}
	if tn.Namespace != hbase.DefaultNamespace {
		return "", unsupported(op, "a table outside the default namespace: gohbase's admin requests name every table default:NAME")
	}
	return tn.Qualifier, nil
}

// CreateTable creates a table of the default namespace with gohbase's
// CreateTable, pre-split at splitKeys. Family attributes other than
// those gohbase sends (BLOOMFILTER, VERSIONS, IN_MEMORY,
// KEEP_DELETED_CELLS, DATA_BLOCK_ENCODING, TTL, COMPRESSION,
// MIN_VERSIONS, BLOCKCACHE, BLOCKSIZE, REPLICATION_SCOPE) fail with an
// *UnsupportedError rather than be dropped.
func (c *Client) CreateTable(ctx context.Context, desc hbase.TableDescriptor, splitKeys [][]byte) error {
	const op = "create table"
	if err := desc.Validate(); err != nil {
		return err
	}
	if err := hbase.ValidateSplitKeys(splitKeys); err != nil {
		return err
	}
	q, err := defaultNamespaceTable(op, desc.Name)
	if err != nil {
		return err
	}
	fams := make(map[string]map[string]string, len(desc.Families))
	for _, f := range desc.Families {
		attrs := make(map[string]string, len(f.Attributes)+len(hbaseDefaults))
		for k, v := range hbaseDefaults {
			attrs[k] = v
		}
		for k, v := range f.Attributes {
			if !slices.Contains(familyAttributes, k) {
				return unsupported(op, fmt.Sprintf("family attribute %s: gohbase's CreateTable sends only %v", k, familyAttributes))
			}
			attrs[k] = v
		}
		fams[f.Name] = attrs
	}
	if err := c.adminClient(op); err != nil {
		return err
	}
	var opts []func(*hrpc.CreateTable)
	if len(splitKeys) > 0 {
		keys := slices.Clone(splitKeys)
		slices.SortFunc(keys, bytes.Compare)
		opts = append(opts, hrpc.SplitKeys(keys))
	}
	if len(desc.Attributes) > 0 {
		opts = append(opts, hrpc.TableAttributes(desc.Attributes))
	}
	return wrapErr(op, desc.Name, c.admin.CreateTable(hrpc.NewCreateTable(ctx, []byte(q), fams, opts...)))
}

// DeleteTable deletes a disabled table of the default namespace.
func (c *Client) DeleteTable(ctx context.Context, table string) error {
	const op = "delete table"
	q, err := defaultNamespaceTable(op, table)
	if err != nil {
		return err
	}
	if err := c.adminClient(op); err != nil {
		return err
	}
	return wrapErr(op, table, c.admin.DeleteTable(hrpc.NewDeleteTable(ctx, []byte(q))))
}

// EnableTable enables a table of the default namespace.
func (c *Client) EnableTable(ctx context.Context, table string) error {
	const op = "enable table"
	q, err := defaultNamespaceTable(op, table)
	if err != nil {
		return err
	}
	if err := c.adminClient(op); err != nil {
		return err
	}
	return wrapErr(op, table, c.admin.EnableTable(hrpc.NewEnableTable(ctx, []byte(q))))
}

// DisableTable disables a table of the default namespace.
func (c *Client) DisableTable(ctx context.Context, table string) error {
	const op = "disable table"
	q, err := defaultNamespaceTable(op, table)
	if err != nil {
		return err
	}
	if err := c.adminClient(op); err != nil {
		return err
	}
	return wrapErr(op, table, c.admin.DisableTable(hrpc.NewDisableTable(ctx, []byte(q))))
}

// TableExists asks the master for the tables of the namespace whose name
// matches the table's exactly (gohbase's ListTableNames). It works in
// every namespace.
func (c *Client) TableExists(ctx context.Context, table string) (bool, error) {
	const op = "table exists"
	tn, err := hbase.ParseTableName(table)
	if err != nil {
		return false, err
	}
	if err := c.adminClient(op); err != nil {
		return false, err
	}
	names, err := c.listTableNames(ctx, tn.Namespace, "^(?:"+regexp.QuoteMeta(tn.Namespace)+":)?"+regexp.QuoteMeta(tn.Qualifier)+"$")
	if err != nil {
		if errors.Is(err, hbase.ErrNamespaceNotFound) {
			return false, nil
		}
		return false, wrapErr(op, table, err)
	}
	return slices.Contains(names, tn.String()), nil
}

// ListTables lists the tables of namespace (every namespace but the
// system one for ""), sorted, with gohbase's ListTableNames.
func (c *Client) ListTables(ctx context.Context, namespace string) ([]string, error) {
	const op = "list tables"
	if namespace != "" {
		if err := hbase.ValidateNamespace(namespace); err != nil {
			return nil, err
		}
	}
	if err := c.adminClient(op); err != nil {
		return nil, err
	}
	names, err := c.listTableNames(ctx, namespace, ".*")
	if err != nil {
		return nil, wrapErr(op, namespace, err)
	}
	sort.Strings(names)
	return names, nil
}

// listTableNames returns canonical names (see hbase.TableName.String).
func (c *Client) listTableNames(ctx context.Context, namespace, regex string) ([]string, error) {
	opts := []func(hrpc.Call) error{hrpc.ListRegex(regex)}
	if namespace != "" {
		opts = append(opts, hrpc.ListNamespace(namespace))
	}
	if namespace == hbase.SystemNamespace {
		opts = append(opts, hrpc.ListSysTables(true))
	}
	req, err := hrpc.NewListTableNames(ctx, opts...)
	if err != nil {
		return nil, err
	}
	tns, err := c.admin.ListTableNames(req)
	if err != nil {
		return nil, wrapErr("list tables", namespace, err)
	}
	out := make([]string, 0, len(tns))
	for _, t := range tns {
		name := hbase.TableName{Namespace: string(t.GetNamespace()), Qualifier: string(t.GetQualifier())}
		if name.Namespace == hbase.SystemNamespace && namespace != hbase.SystemNamespace {
			continue
		}
		out = append(out, name.String())
	}
	return out, nil
}

// metaTable is HBase's catalog table; the adapter reads table states and
// region boundaries from it with gohbase's Get and Scan.
const metaTable = "hbase:meta"

// IsTableEnabled reads the table's state from hbase:meta (family "table",
// qualifier "state", a TableState protobuf) with gohbase's Get.
func (c *Client) IsTableEnabled(ctx context.Context, table string) (bool, error) {
	const op = "is table enabled"
	tn, err := hbase.ParseTableName(table)
	if err != nil {
		return false, err
	}
	g, err := hrpc.NewGet(ctx, []byte(metaTable), []byte(metaRowTable(tn)),
		hrpc.Families(map[string][]string{"table": {"state"}}))
	if err != nil {
		return false, wrapErr(op, table, err)
	}
	r, err := c.c.Get(g)
	if err != nil {
		return false, wrapErr(op, table, err)
	}
	if len(r.Cells) == 0 {
		return false, &Error{Op: op, Table: table, Err: errors.New("no state in hbase:meta"), sentinel: hbase.ErrTableNotFound}
	}
	state, err := tableState(r.Cells[0].Value)
	if err != nil {
		return false, wrapErr(op, table, err)
	}
	return state == tableEnabled, nil
}

// metaRowTable is how hbase:meta spells a table: the qualifier alone in
// the default namespace, else "ns:qualifier".
func metaRowTable(tn hbase.TableName) string { return tn.String() }

// TableState.State values (HBase.proto).
const (
	tableEnabled  = 0
	tableDisabled = 1
)

// tableState decodes field 1 of HBase's TableState message, which
// gohbase's protobuf package does not include.
func tableState(b []byte) (int, error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, fmt.Errorf("table state: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if num == 1 && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, fmt.Errorf("table state: %w", protowire.ParseError(n))
			}
			return int(v), nil
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, fmt.Errorf("table state: %w", protowire.ParseError(n))
		}
		b = b[n:]
	}
	return 0, errors.New("table state: no state field")
}

// TableRegions scans the table's rows of hbase:meta with gohbase's Scan
// and decodes their info:regioninfo (a "PBUF"-prefixed RegionInfo of
// gohbase's protobuf package) and info:server cells. Split parents
// (offline) are left out.
func (c *Client) TableRegions(ctx context.Context, table string) ([]hbase.RegionInfo, error) {
	const op = "table regions"
	tn, err := hbase.ParseTableName(table)
	if err != nil {
		return nil, err
	}
	name := metaRowTable(tn)
	// hbase:meta orders its rows "table,startkey,id.encoded." by table,
	// then start key, then id (not byte-wise): the table's rows lie from
	// "table,," to "table ,," (a space sorts before every character of a
	// table name).
	start, stop := []byte(name+",,"), []byte(name+" ,,")
	rpc, err := hrpc.NewScanRange(ctx, []byte(metaTable), start, stop,
		hrpc.Families(map[string][]string{"info": {"regioninfo", "server"}}))
	if err != nil {
		return nil, wrapErr(op, table, err)
	}
	sc := &scanner{sc: c.c.Scan(rpc), table: metaTable}
	defer sc.Close()
	var out []hbase.RegionInfo
	for sc.Next() {
		r := sc.Result()
		ri, ok, err := regionInfo(r, tn.String())
		if err != nil {
			return nil, wrapErr(op, table, err)
		}
		if ok {
			out = append(out, ri)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, wrapErr(op, table, err)
	}
	if len(out) == 0 {
		return nil, &Error{Op: op, Table: table, Err: errors.New("no region in hbase:meta"), sentinel: hbase.ErrTableNotFound}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].StartKey, out[j].StartKey) < 0 })
	return out, nil
}

// regionInfo decodes one hbase:meta row; ok is false for split parents.
func regionInfo(r *hbase.Result, table string) (hbase.RegionInfo, bool, error) {
	var ri hbase.RegionInfo
	raw := r.Value([]byte("info"), []byte("regioninfo"))
	const magic = "PBUF"
	if len(raw) < len(magic) || string(raw[:len(magic)]) != magic {
		return ri, false, fmt.Errorf("hbase:meta row %q: no PBUF regioninfo", r.Row())
	}
	var info pb.RegionInfo
	if err := proto.Unmarshal(raw[len(magic):], &info); err != nil {
		return ri, false, fmt.Errorf("hbase:meta row %q: %w", r.Row(), err)
	}
	if info.GetOffline() || info.GetSplit() || info.GetReplicaId() != 0 {
		return ri, false, nil
	}
	if tn := (hbase.TableName{Namespace: string(info.GetTableName().GetNamespace()),
		Qualifier: string(info.GetTableName().GetQualifier())}); tn.String() != table {
		return ri, false, nil
	}
	ri = hbase.RegionInfo{
		Table:      table,
		StartKey:   info.GetStartKey(),
		EndKey:     info.GetEndKey(),
		Server:     string(r.Value([]byte("info"), []byte("server"))),
		RegionName: bytes.Clone(r.Row()),
		ID:         int64(info.GetRegionId()),
	}
	return ri, true, nil
}

// The calls gohbase's AdminClient does not offer: each fails with an
// *UnsupportedError.

// CreateNamespace is unsupported: gohbase has no namespace calls.
func (c *Client) CreateNamespace(ctx context.Context, namespace string) error {
	return unsupported("create namespace", "gohbase's AdminClient has no namespace calls")
}

// DeleteNamespace is unsupported: gohbase has no namespace calls.
func (c *Client) DeleteNamespace(ctx context.Context, namespace string) error {
	return unsupported("delete namespace", "gohbase's AdminClient has no namespace calls")
}

// ListNamespaces is unsupported: gohbase has no namespace calls.
func (c *Client) ListNamespaces(ctx context.Context) ([]string, error) {
	return nil, unsupported("list namespaces", "gohbase's AdminClient has no namespace calls")
}

// TruncateTable is unsupported: gohbase has no TruncateTable.
func (c *Client) TruncateTable(ctx context.Context, table string, preserveSplits bool) error {
	return unsupported("truncate table", "gohbase's AdminClient has no TruncateTable")
}

// ModifyTable is unsupported: gohbase has no ModifyTable.
func (c *Client) ModifyTable(ctx context.Context, desc hbase.TableDescriptor) error {
	return unsupported("modify table", "gohbase's AdminClient has no ModifyTable")
}

// DescribeTable is unsupported: gohbase cannot read table descriptors.
func (c *Client) DescribeTable(ctx context.Context, table string) (hbase.TableDescriptor, error) {
	return hbase.TableDescriptor{}, unsupported("describe table", "gohbase's AdminClient cannot read table descriptors")
}

// SplitRegion is unsupported: gohbase has no SplitRegion.
func (c *Client) SplitRegion(ctx context.Context, table string, splitKey []byte) error {
	return unsupported("split region", "gohbase's AdminClient has no SplitRegion")
}

// Unsupported returns the error that the Client's method named method (as
// in hbase.AdminClient and hbase.DataClient: "DescribeTable",
// "TruncateTable", ...) returns whatever its arguments, an
// *UnsupportedError, or nil when the Client makes that call, if perhaps
// not in every form (README.md lists them). It sends nothing: hbkit's
// commands ask it before starting a job they could not finish.
func (c *Client) Unsupported(method string) error {
	// These methods refuse before looking at their arguments.
	ctx := context.Background()
	switch method {
	case "CreateNamespace":
		return c.CreateNamespace(ctx, "")
	case "DeleteNamespace":
		return c.DeleteNamespace(ctx, "")
	case "ListNamespaces":
		_, err := c.ListNamespaces(ctx)
		return err
	case "TruncateTable":
		return c.TruncateTable(ctx, "", true)
	case "ModifyTable":
		return c.ModifyTable(ctx, hbase.TableDescriptor{})
	case "DescribeTable":
		_, err := c.DescribeTable(ctx, "")
		return err
	case "SplitRegion":
		return c.SplitRegion(ctx, "", nil)
	}
	return nil
}
