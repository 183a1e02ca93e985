package hbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// The AdminClient half of the client: the master's DDL calls. Every call
// validates its input before sending anything, talks to the active master
// through c.masterCall (which finds it in ZooKeeper and retries transient
// failures), and waits for the master's procedure to finish before
// returning, bounded by ctx.

var _ AdminClient = (*Client)(nil)

// adminErr wraps the failure of an admin operation on a table or
// namespace. Validation errors are returned as they are.
func adminErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var ie *InvalidRequestError
	if errors.As(err, &ie) {
		return err
	}
	return fmt.Errorf("hbase: %s %q: %w", op, name, err)
}

// withOp rewrites the operation named by a validation error.
func withOp(op string, err error) error {
	var ie *InvalidRequestError
	if errors.As(err, &ie) && ie.Op != op {
		cp := *ie
		cp.Op = op
		return &cp
	}
	return err
}

// parseAdminTable validates a table name argument.
func parseAdminTable(op, table string) (TableName, error) {
	tn, err := ParseTableName(table)
	var ie *InvalidRequestError
	if errors.As(err, &ie) {
		return TableName{}, &InvalidRequestError{Op: op, Field: "Table", Reason: ie.Reason, Err: ie.Err}
	}
	return tn, err
}

// ddlNonce returns the nonce group and a fresh nonce for one DDL request.
// The retries of masterCall resend the same request, so the master
// recognises a resend of a request it already started.
func (c *Client) ddlNonce() (group, nonce *uint64) {
	return proto.Uint64(c.nonceGroup), proto.Uint64(c.newNonce())
}

// CreateNamespace creates a namespace. It fails with ErrNamespaceExists if
// the namespace exists.
func (c *Client) CreateNamespace(ctx context.Context, namespace string) (err error) {
	const op = "create namespace"
	if err := ValidateNamespace(namespace); err != nil {
		return withOp(op, err)
	}
	ctx, sp := c.startOp(ctx, "create_namespace", "")
	defer func() { sp.end(ctx, err) }()
	group, nonce := c.ddlNonce()
	req := &pb.CreateNamespaceRequest{
		NamespaceDescriptor: &pb.NamespaceDescriptor{Name: []byte(namespace)},
		NonceGroup:          group,
		Nonce:               nonce,
	}
	return adminErr(op, namespace, c.runProcedure(ctx, "CreateNamespace", req, &pb.CreateNamespaceResponse{}))
}

// DeleteNamespace removes an empty namespace: ErrNamespaceNotEmpty if it
// still has tables, ErrNamespaceNotFound if it does not exist. The
// namespaces "default" and "hbase" cannot be removed.
func (c *Client) DeleteNamespace(ctx context.Context, namespace string) (err error) {
	const op = "delete namespace"
	if err := ValidateNamespace(namespace); err != nil {
		return withOp(op, err)
	}
	if namespace == DefaultNamespace || namespace == SystemNamespace {
		return invalid(op, "namespace", ErrInvalidNamespace, "reserved namespace "+namespace)
	}
	ctx, sp := c.startOp(ctx, "delete_namespace", "")
	defer func() { sp.end(ctx, err) }()
	group, nonce := c.ddlNonce()
	req := &pb.DeleteNamespaceRequest{NamespaceName: proto.String(namespace), NonceGroup: group, Nonce: nonce}
	err = c.runProcedure(ctx, "DeleteNamespace", req, &pb.DeleteNamespaceResponse{})
	if isNamespaceNotEmpty(err) && !errors.Is(err, ErrNamespaceNotEmpty) {
		err = fmt.Errorf("%w: %w", ErrNamespaceNotEmpty, err)
	}
	return adminErr(op, namespace, err)
}

// isNamespaceNotEmpty reports whether err is the master's refusal to
// delete a namespace that still has tables: a ConstraintException "Only
// empty namespaces can be removed. Namespace ns has 1 tables" (HBase 2.6),
// raised by the RPC or by the procedure.
func isNamespaceNotEmpty(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && re.Class == excConstraint && strings.Contains(re.Message, "empty namespace")
}

// ListNamespaces returns the names of all namespaces, sorted, "default"
// and "hbase" included.
func (c *Client) ListNamespaces(ctx context.Context) (_ []string, err error) {
	ctx, sp := c.startOp(ctx, "list_namespaces", "")
	defer func() { sp.end(ctx, err) }()
	resp := &pb.ListNamespaceDescriptorsResponse{}
	if err := c.masterCall(ctx, "ListNamespaceDescriptors", &pb.ListNamespaceDescriptorsRequest{}, resp); err != nil {
		return nil, fmt.Errorf("hbase: list namespaces: %w", err)
	}
	out := make([]string, 0, len(resp.GetNamespaceDescriptor()))
	for _, d := range resp.GetNamespaceDescriptor() {
		out = append(out, string(d.GetName()))
	}
	slices.Sort(out)
	return out, nil
}

// CreateTable creates an enabled table, pre-split at splitKeys, and
// returns once its regions are open. It fails with ErrTableExists if the
// table exists and ErrNamespaceNotFound if its namespace does not.
// Family attribute values of enum and boolean options are sent the way
// the Java client spells them ("row" → "ROW", "TRUE" → "true").
func (c *Client) CreateTable(ctx context.Context, desc TableDescriptor, splitKeys [][]byte) (err error) {
	const op = "create table"
	if err := desc.Validate(); err != nil {
		return err
	}
	if err := ValidateSplitKeys(splitKeys); err != nil {
		return err
	}
	tn, err := ParseTableName(desc.Name)
	if err != nil {
		return err
	}
	ctx, sp := c.startOp(ctx, "create_table", desc.Name)
	defer func() { sp.end(ctx, err) }()
	group, nonce := c.ddlNonce()
	req := &pb.CreateTableRequest{
		TableSchema: tableSchema(tn, desc),
		SplitKeys:   sortedSplitKeys(splitKeys),
		NonceGroup:  group,
		Nonce:       nonce,
	}
	err = c.runProcedure(ctx, "CreateTable", req, &pb.CreateTableResponse{})
	// A table of the same name may have existed before: its regions are
	// no longer valid.
	c.forgetTableRegions(tn)
	return adminErr(op, desc.Name, err)
}

// DeleteTable deletes a disabled table: ErrTableNotDisabled if it is
// enabled, ErrTableNotFound if it does not exist.
func (c *Client) DeleteTable(ctx context.Context, table string) error {
	return c.tableProcedure(ctx, "delete table", table, "DeleteTable", func(tn *pb.TableName, group, nonce *uint64) proto.Message {
		return &pb.DeleteTableRequest{TableName: tn, NonceGroup: group, Nonce: nonce}
	}, &pb.DeleteTableResponse{})
}

// EnableTable enables a disabled table: ErrTableNotDisabled if it is
// enabled already.
func (c *Client) EnableTable(ctx context.Context, table string) error {
	return c.tableProcedure(ctx, "enable table", table, "EnableTable", func(tn *pb.TableName, group, nonce *uint64) proto.Message {
		return &pb.EnableTableRequest{TableName: tn, NonceGroup: group, Nonce: nonce}
	}, &pb.EnableTableResponse{})
}

// DisableTable disables an enabled table: ErrTableDisabled if it is not
// enabled.
func (c *Client) DisableTable(ctx context.Context, table string) error {
	return c.tableProcedure(ctx, "disable table", table, "DisableTable", func(tn *pb.TableName, group, nonce *uint64) proto.Message {
		return &pb.DisableTableRequest{TableName: tn, NonceGroup: group, Nonce: nonce}
	}, &pb.DisableTableResponse{})
}

// TruncateTable removes every row of a disabled table (the master's
// "truncateTable"), keeping its region boundaries if preserveSplits. The
// table is enabled afterwards.
func (c *Client) TruncateTable(ctx context.Context, table string, preserveSplits bool) error {
	return c.tableProcedure(ctx, "truncate table", table, "truncateTable", func(tn *pb.TableName, group, nonce *uint64) proto.Message {
		return &pb.TruncateTableRequest{TableName: tn, PreserveSplits: proto.Bool(preserveSplits), NonceGroup: group, Nonce: nonce}
	}, &pb.TruncateTableResponse{})
}

// tableProcedure runs the master procedure method on table (op names the
// operation in errors and, with "_" for " ", its span), with the request
// req builds from the table's name and a DDL nonce, and forgets the
// table's cached regions after it.
func (c *Client) tableProcedure(ctx context.Context, op, table, method string, req func(tn *pb.TableName, group, nonce *uint64) proto.Message, resp procResponse) (err error) {
	tn, err := parseAdminTable(op, table)
	if err != nil {
		return err
	}
	ctx, sp := c.startOp(ctx, strings.ReplaceAll(op, " ", "_"), table)
	defer func() { sp.end(ctx, err) }()
	group, nonce := c.ddlNonce()
	err = c.runProcedure(ctx, method, req(pbTableName(tn), group, nonce), resp)
	c.forgetTableRegions(tn)
	return adminErr(op, table, err)
}

// ModifyTable replaces the descriptor of an existing table (ErrTableNotFound
// otherwise): families missing from desc are dropped with their data, new
// ones added, changed attributes applied. An enabled table stays online;
// its regions are reopened.
func (c *Client) ModifyTable(ctx context.Context, desc TableDescriptor) (err error) {
	const op = "modify table"
	if err := desc.Validate(); err != nil {
		return withOp(op, err)
	}
	tn, err := ParseTableName(desc.Name)
	if err != nil {
		return withOp(op, err)
	}
	ctx, sp := c.startOp(ctx, "modify_table", desc.Name)
	defer func() { sp.end(ctx, err) }()
	group, nonce := c.ddlNonce()
	req := &pb.ModifyTableRequest{
		TableName:   pbTableName(tn),
		TableSchema: tableSchema(tn, desc),
		NonceGroup:  group,
		Nonce:       nonce,
	}
	err = c.runProcedure(ctx, "ModifyTable", req, &pb.ModifyTableResponse{})
	c.forgetTableRegions(tn)
	return adminErr(op, desc.Name, err)
}

// tableSchemaOf fetches a table's descriptor; found is false for a
// missing table (the master leaves it out of its answer).
func (c *Client) tableSchemaOf(ctx context.Context, tn TableName) (_ *pb.TableSchema, found bool, err error) {
	resp := &pb.GetTableDescriptorsResponse{}
	req := &pb.GetTableDescriptorsRequest{TableNames: []*pb.TableName{pbTableName(tn)}}
	if err := c.masterCall(ctx, "GetTableDescriptors", req, resp); err != nil {
		return nil, false, err
	}
	for _, s := range resp.GetTableSchema() {
		if tableNameOf(s.GetTableName()) == tn {
			return s, true, nil
		}
	}
	return nil, false, nil
}

// TableExists reports whether the table exists (enabled or not). A table
// in a namespace that does not exist does not exist.
func (c *Client) TableExists(ctx context.Context, table string) (_ bool, err error) {
	const op = "table exists"
	tn, err := parseAdminTable(op, table)
	if err != nil {
		return false, err
	}
	ctx, sp := c.startOp(ctx, "table_exists", table)
	defer func() { sp.end(ctx, err) }()
	_, found, err := c.tableSchemaOf(ctx, tn)
	return found, adminErr(op, table, err)
}

// DescribeTable returns the table's descriptor as the master reports it:
// every family with every option the server knows (its defaults
// included), under HBase's names (VERSIONS, TTL, BLOOMFILTER, COMPRESSION,
// BLOCKSIZE, IN_MEMORY, BLOCKCACHE, DATA_BLOCK_ENCODING, ...), and the
// table-level attributes the server keeps (e.g. IS_META). Families are
// sorted by name. ErrTableNotFound if the table does not exist.
func (c *Client) DescribeTable(ctx context.Context, table string) (_ TableDescriptor, err error) {
	const op = "describe table"
	tn, err := parseAdminTable(op, table)
	if err != nil {
		return TableDescriptor{}, err
	}
	ctx, sp := c.startOp(ctx, "describe_table", table)
	defer func() { sp.end(ctx, err) }()
	s, found, err := c.tableSchemaOf(ctx, tn)
	if err != nil {
		return TableDescriptor{}, adminErr(op, table, err)
	}
	if !found {
		return TableDescriptor{}, adminErr(op, table, ErrTableNotFound)
	}
	return descriptorOf(s), nil
}

// masterTableState reads a table's state from the master (GetTableState);
// ErrTableNotFound for a missing table.
func (c *Client) masterTableState(ctx context.Context, tn TableName) (pb.TableState_State, error) {
	resp := &pb.GetTableStateResponse{}
	if err := c.masterCall(ctx, "GetTableState", &pb.GetTableStateRequest{TableName: pbTableName(tn)}, resp); err != nil {
		return 0, err
	}
	return resp.GetTableState().GetState(), nil
}

// IsTableEnabled reports whether the table is enabled; a table being
// enabled or disabled is not. ErrTableNotFound if it does not exist.
func (c *Client) IsTableEnabled(ctx context.Context, table string) (_ bool, err error) {
	const op = "is table enabled"
	tn, err := parseAdminTable(op, table)
	if err != nil {
		return false, err
	}
	ctx, sp := c.startOp(ctx, "is_table_enabled", table)
	defer func() { sp.end(ctx, err) }()
	st, err := c.masterTableState(ctx, tn)
	if err != nil {
		return false, adminErr(op, table, err)
	}
	return st == pb.TableState_ENABLED, nil
}

// ListTables returns the canonical names of the tables in namespace,
// sorted; namespace "" lists every namespace except "hbase".
// ErrNamespaceNotFound if the namespace does not exist.
func (c *Client) ListTables(ctx context.Context, namespace string) (_ []string, err error) {
	const op = "list tables"
	if namespace != "" {
		if err := ValidateNamespace(namespace); err != nil {
			return nil, withOp(op, err)
		}
	}
	ctx, sp := c.startOp(ctx, "list_tables", "")
	defer func() { sp.end(ctx, err) }()
	req := &pb.GetTableNamesRequest{}
	if namespace != "" {
		req.Namespace = proto.String(namespace)
		// The master leaves system tables out unless asked; they are the
		// whole of the "hbase" namespace.
		req.IncludeSysTables = proto.Bool(namespace == SystemNamespace)
	}
	resp := &pb.GetTableNamesResponse{}
	if err := c.masterCall(ctx, "GetTableNames", req, resp); err != nil {
		return nil, adminErr(op, namespace, err)
	}
	out := make([]string, 0, len(resp.GetTableNames()))
	for _, t := range resp.GetTableNames() {
		tn := tableNameOf(t)
		if namespace == "" && tn.Namespace == SystemNamespace {
			continue
		}
		out = append(out, tn.String())
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
