package fake

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Client is an in-memory HBase. It implements hbase.DataClient and
// hbase.AdminClient and is safe for concurrent use.
type Client struct {
	now    func() time.Time
	server string

	mu         sync.Mutex
	closed     bool
	lastTS     int64
	namespaces map[string]bool
	tables     map[string]*table // by canonical name
}

var (
	_ hbapi.DataClient  = (*Client)(nil)
	_ hbapi.AdminClient = (*Client)(nil)
)

// Option configures a Client.
type Option func(*options)

type options struct {
	now    func() time.Time
	server string
}

// WithClock sets the clock used for server-assigned timestamps, TTLs and
// region ids (default time.Now). Use a fixed or stepping clock for
// deterministic tests; timestamps still never repeat.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithServer sets the "host:port" reported as the server of every region
// (default "localhost:16020").
func WithServer(hostport string) Option {
	return func(o *options) { o.server = hostport }
}

func (o *options) validate() error {
	if o.now == nil {
		return errors.New("fake: WithClock(nil)")
	}
	if o.server == "" {
		return errors.New("fake: WithServer(\"\")")
	}
	return nil
}

// New returns an empty in-memory HBase with the namespaces "default" and
// "hbase".
func New(opts ...Option) (*Client, error) {
	o := options{now: time.Now, server: "localhost:16020"}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return &Client{
		now:        o.now,
		server:     o.server,
		namespaces: map[string]bool{hbapi.DefaultNamespace: true, hbapi.SystemNamespace: true},
		tables:     map[string]*table{},
	}, nil
}

// Close makes every later call fail with hbase.ErrClosed. Open scanners
// keep working on their snapshot.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

// begin checks the context and the client state and locks the client.
// The caller must unlock c.mu if begin returns nil.
func (c *Client) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return hbapi.ErrClosed
	}
	return nil
}

func (c *Client) nowMs() int64 { return c.now().UnixMilli() }

// nextTS returns a server-assigned timestamp: the clock in milliseconds,
// bumped so that it is greater than every timestamp assigned before.
func (c *Client) nextTS() int64 {
	ts := c.nowMs()
	if ts <= c.lastTS {
		ts = c.lastTS + 1
	}
	c.lastTS = ts
	return ts
}

func opErr(op, table string, err error) error {
	return fmt.Errorf("fake: %s %q: %w", op, table, err)
}

// lookup finds a table by any spelling of its name.
func (c *Client) lookup(name string) (*table, error) {
	tn, err := hbapi.ParseTableName(name)
	if err != nil {
		return nil, err
	}
	t := c.tables[tn.String()]
	if t == nil {
		return nil, hbapi.ErrTableNotFound
	}
	return t, nil
}

// beginTable begins a call (see begin) on the table name, for the admin
// call op: on success c.mu is held and the caller unlocks it.
func (c *Client) beginTable(ctx context.Context, op, name string) (*table, error) {
	return c.beginWith(ctx, op, name, c.lookup)
}

// beginData is beginTable for a data call: the table must be enabled
// (see dataTable).
func (c *Client) beginData(ctx context.Context, op, name string) (*table, error) {
	return c.beginWith(ctx, op, name, c.dataTable)
}

// beginWith begins a call and finds its table with find, unlocking and
// naming the call op on failure.
func (c *Client) beginWith(ctx context.Context, op, name string, find func(string) (*table, error)) (*table, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	t, err := find(name)
	if err != nil {
		c.mu.Unlock()
		return nil, opErr(op, name, err)
	}
	return t, nil
}

// dataTable finds an enabled table for a data call.
func (c *Client) dataTable(name string) (*table, error) {
	t, err := c.lookup(name)
	if err != nil {
		return nil, err
	}
	if !t.enabled {
		return nil, hbapi.ErrTableDisabled
	}
	return t, nil
}

func (t *table) checkFamily(f []byte) error {
	if _, ok := t.families[string(f)]; !ok {
		return fmt.Errorf("%w: %q", hbapi.ErrNoSuchFamily, f)
	}
	return nil
}

// CreateNamespace implements hbase.AdminClient.
func (c *Client) CreateNamespace(ctx context.Context, ns string) error {
	if err := hbapi.ValidateNamespace(ns); err != nil {
		return err
	}
	if err := c.begin(ctx); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if c.namespaces[ns] {
		return fmt.Errorf("fake: create namespace %q: %w", ns, hbapi.ErrNamespaceExists)
	}
	c.namespaces[ns] = true
	return nil
}

// DeleteNamespace implements hbase.AdminClient.
func (c *Client) DeleteNamespace(ctx context.Context, ns string) error {
	if err := hbapi.ValidateNamespace(ns); err != nil {
		return err
	}
	if ns == hbapi.DefaultNamespace || ns == hbapi.SystemNamespace {
		return &hbapi.InvalidRequestError{Op: "delete namespace", Field: "namespace", Reason: "reserved namespace " + ns, Err: hbapi.ErrInvalidNamespace}
	}
	if err := c.begin(ctx); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if !c.namespaces[ns] {
		return fmt.Errorf("fake: delete namespace %q: %w", ns, hbapi.ErrNamespaceNotFound)
	}
	for _, t := range c.tables {
		if t.name.Namespace == ns {
			return fmt.Errorf("fake: delete namespace %q: %w", ns, hbapi.ErrNamespaceNotEmpty)
		}
	}
	delete(c.namespaces, ns)
	return nil
}

// ListNamespaces implements hbase.AdminClient.
func (c *Client) ListNamespaces(ctx context.Context) ([]string, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.namespaces)), nil
}

func cloneDescriptor(d hbapi.TableDescriptor) hbapi.TableDescriptor {
	out := hbapi.TableDescriptor{Name: d.Name, Attributes: maps.Clone(d.Attributes)}
	for _, f := range d.Families {
		out.Families = append(out.Families, hbapi.FamilyDescriptor{Name: f.Name, Attributes: maps.Clone(f.Attributes)})
	}
	slices.SortFunc(out.Families, func(a, b hbapi.FamilyDescriptor) int {
		return bytes.Compare([]byte(a.Name), []byte(b.Name))
	})
	return out
}

func (t *table) setDescriptor(d hbapi.TableDescriptor) {
	t.desc = cloneDescriptor(d)
	t.desc.Name = t.name.String()
	t.families = map[string]familyConf{}
	for _, f := range t.desc.Families {
		t.families[f.Name] = familyConfOf(f)
	}
}

// CreateTable implements hbase.AdminClient.
func (c *Client) CreateTable(ctx context.Context, desc hbapi.TableDescriptor, splitKeys [][]byte) error {
	if err := desc.Validate(); err != nil {
		return err
	}
	if err := hbapi.ValidateSplitKeys(splitKeys); err != nil {
		return err
	}
	tn, _ := hbapi.ParseTableName(desc.Name) // validated above
	if err := c.begin(ctx); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if !c.namespaces[tn.Namespace] {
		return opErr("create table", desc.Name, hbapi.ErrNamespaceNotFound)
	}
	if c.tables[tn.String()] != nil {
		return opErr("create table", desc.Name, hbapi.ErrTableExists)
	}
	t := &table{name: tn, enabled: true}
	t.setDescriptor(desc)
	t.reset(sortedKeys(splitKeys), c.nextRegionID())
	c.tables[tn.String()] = t
	return nil
}

func sortedKeys(keys [][]byte) [][]byte {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = bytes.Clone(k)
	}
	slices.SortFunc(out, bytes.Compare)
	return out
}

// reset empties the table and sets its regions.
func (t *table) reset(splits [][]byte, id int64) {
	t.rows = map[string]*row{}
	t.keys = nil
	t.splits = splits
	t.regionID = make([]int64, len(splits)+1)
	for i := range t.regionID {
		t.regionID[i] = id
	}
}

func (c *Client) nextRegionID() int64 { return c.nextTS() }

func regionName(tn hbapi.TableName, start []byte, id int64) []byte {
	b := []byte(tn.String())
	b = append(b, ',')
	b = append(b, start...)
	b = append(b, ',')
	b = strconv.AppendInt(b, id, 10)
	sum := md5.Sum(b)
	b = append(b, '.')
	b = append(b, hex.EncodeToString(sum[:])...)
	return append(b, '.')
}

// DeleteTable implements hbase.AdminClient.
func (c *Client) DeleteTable(ctx context.Context, name string) error {
	t, err := c.beginTable(ctx, "delete table", name)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if t.enabled {
		return opErr("delete table", name, hbapi.ErrTableNotDisabled)
	}
	delete(c.tables, t.name.String())
	return nil
}

// EnableTable implements hbase.AdminClient.
func (c *Client) EnableTable(ctx context.Context, name string) error {
	t, err := c.beginTable(ctx, "enable table", name)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if t.enabled {
		return opErr("enable table", name, hbapi.ErrTableNotDisabled)
	}
	t.enabled = true
	return nil
}

// DisableTable implements hbase.AdminClient.
func (c *Client) DisableTable(ctx context.Context, name string) error {
	t, err := c.beginTable(ctx, "disable table", name)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if !t.enabled {
		return opErr("disable table", name, hbapi.ErrTableDisabled)
	}
	t.enabled = false
	return nil
}

// TruncateTable implements hbase.AdminClient.
func (c *Client) TruncateTable(ctx context.Context, name string, preserveSplits bool) error {
	t, err := c.beginTable(ctx, "truncate table", name)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if t.enabled {
		return opErr("truncate table", name, hbapi.ErrTableNotDisabled)
	}
	splits := t.splits
	if !preserveSplits {
		splits = nil
	}
	t.reset(splits, c.nextRegionID())
	t.enabled = true
	return nil
}

// ModifyTable implements hbase.AdminClient. Data of removed families
// disappears.
func (c *Client) ModifyTable(ctx context.Context, desc hbapi.TableDescriptor) error {
	if err := desc.Validate(); err != nil {
		return err
	}
	t, err := c.beginTable(ctx, "modify table", desc.Name)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	t.setDescriptor(desc)
	for _, r := range t.rows {
		r.cells = slices.DeleteFunc(r.cells, func(cell hbapi.Cell) bool {
			_, ok := t.families[string(cell.Family)]
			return !ok
		})
	}
	return nil
}

// TableExists implements hbase.AdminClient.
func (c *Client) TableExists(ctx context.Context, name string) (bool, error) {
	if _, err := hbapi.ParseTableName(name); err != nil {
		return false, err
	}
	if err := c.begin(ctx); err != nil {
		return false, err
	}
	defer c.mu.Unlock()
	_, err := c.lookup(name)
	return err == nil, nil
}

// IsTableEnabled implements hbase.AdminClient.
func (c *Client) IsTableEnabled(ctx context.Context, name string) (bool, error) {
	t, err := c.beginTable(ctx, "is table enabled", name)
	if err != nil {
		return false, err
	}
	defer c.mu.Unlock()
	return t.enabled, nil
}

// ListTables implements hbase.AdminClient.
func (c *Client) ListTables(ctx context.Context, namespace string) ([]string, error) {
	if namespace != "" {
		if err := hbapi.ValidateNamespace(namespace); err != nil {
			return nil, err
		}
	}
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	if namespace != "" && !c.namespaces[namespace] {
		return nil, fmt.Errorf("fake: list tables %q: %w", namespace, hbapi.ErrNamespaceNotFound)
	}
	var out []string
	for name, t := range c.tables {
		if (namespace == "" && t.name.Namespace != hbapi.SystemNamespace) || t.name.Namespace == namespace {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// familyDefaults are the attribute values HBase reports for a family
// created without them.
var familyDefaults = map[string]string{
	"VERSIONS":             "1",
	"MIN_VERSIONS":         "0",
	"TTL":                  "2147483647",
	"BLOOMFILTER":          "ROW",
	"COMPRESSION":          "NONE",
	"DATA_BLOCK_ENCODING":  "NONE",
	"BLOCKSIZE":            "65536",
	"IN_MEMORY":            "false",
	"BLOCKCACHE":           "true",
	"KEEP_DELETED_CELLS":   "FALSE",
	"REPLICATION_SCOPE":    "0",
	"INDEX_BLOCK_ENCODING": "NONE",
}

// DescribeTable implements hbase.AdminClient. Family attributes not set
// at creation are reported with HBase's defaults.
func (c *Client) DescribeTable(ctx context.Context, name string) (hbapi.TableDescriptor, error) {
	t, err := c.beginTable(ctx, "describe table", name)
	if err != nil {
		return hbapi.TableDescriptor{}, err
	}
	defer c.mu.Unlock()
	d := cloneDescriptor(t.desc)
	for i := range d.Families {
		if d.Families[i].Attributes == nil {
			d.Families[i].Attributes = map[string]string{}
		}
		for k, v := range familyDefaults {
			if _, ok := d.Families[i].Attributes[k]; !ok {
				d.Families[i].Attributes[k] = v
			}
		}
	}
	return d, nil
}

// TableRegions implements hbase.AdminClient.
func (c *Client) TableRegions(ctx context.Context, name string) ([]hbapi.RegionInfo, error) {
	t, err := c.beginTable(ctx, "table regions", name)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	return t.regions(c.server), nil
}

// SplitRegion implements hbase.AdminClient.
func (c *Client) SplitRegion(ctx context.Context, name string, splitKey []byte) error {
	if len(splitKey) == 0 {
		return &hbapi.InvalidRequestError{Op: "split region", Field: "splitKey", Err: hbapi.ErrInvalidSplitKeys, Reason: "empty split key"}
	}
	t, err := c.beginTable(ctx, "split region", name)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if !t.enabled {
		return opErr("split region", name, hbapi.ErrTableDisabled)
	}
	i, found := slices.BinarySearchFunc(t.splits, splitKey, bytes.Compare)
	if found {
		return &hbapi.InvalidRequestError{Op: "split region", Field: "splitKey", Err: hbapi.ErrInvalidSplitKeys, Reason: "split key equals a region start key"}
	}
	id := c.nextRegionID()
	t.splits = slices.Insert(t.splits, i, bytes.Clone(splitKey))
	// Region i (the one containing splitKey) becomes regions i and i+1.
	t.regionID[i] = id
	t.regionID = slices.Insert(t.regionID, i+1, id)
	return nil
}
