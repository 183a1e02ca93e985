package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Outcome says what EnsureTable did.
type Outcome uint8

// Outcomes of EnsureTable.
const (
	// Unchanged: the table existed, enabled and as declared.
	Unchanged Outcome = iota + 1
	// Created: the table did not exist and was created (or was being
	// created by a call whose answer was lost, and is now as declared).
	Created
	// Enabled: the table existed as declared but disabled, left so by an
	// interrupted drop or truncate, and was enabled.
	Enabled
	// NeedsBuilding: an index table exists as declared (created now or
	// before) and is building: its data table held rows when it was
	// created, which have no entry until the index is built (dao's
	// Repo.BuildIndex, hbkit index build). Readers refuse it until then.
	NeedsBuilding
)

// String returns the outcome's name: "unchanged", "created", "enabled"; the
// zero Outcome, which comes with an error (TableResult.Err), is "failed".
func (o Outcome) String() string {
	switch o {
	case 0:
		return "failed"
	case Unchanged:
		return "unchanged"
	case Created:
		return "created"
	case Enabled:
		return "enabled"
	case NeedsBuilding:
		return "needs building"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Create creates the table def declares, pre-split at its split keys, in
// one CreateTable call (HBase's create procedure is atomic: it either
// creates every region or rolls back). A missing namespace is created
// first. An existing table is an error wrapping hbase.ErrTableExists; use
// EnsureTable to accept a table that is already as declared.
//
// An index table (schema.IndexDefinition) starts building when its data
// table holds rows, active otherwise (see EnsureTables).
func (a *Admin) Create(ctx context.Context, def schema.Definition) error {
	p, err := PlanTable(def)
	if err != nil {
		return err
	}
	if p, err = a.withInitialState(ctx, p, def, nil); err != nil {
		return err
	}
	return a.create(ctx, p)
}

func (a *Admin) create(ctx context.Context, p *Plan) error {
	err := a.c.CreateTable(ctx, p.Descriptor, p.SplitKeys)
	if errors.Is(err, hbapi.ErrNamespaceNotFound) && p.Namespace != schema.DefaultNamespace {
		if nerr := a.c.CreateNamespace(ctx, p.Namespace); nerr != nil && !errors.Is(nerr, hbapi.ErrNamespaceExists) {
			return fmt.Errorf("admin: create namespace %q: %w", p.Namespace, nerr)
		}
		err = a.c.CreateTable(ctx, p.Descriptor, p.SplitKeys)
	}
	if err != nil {
		return fmt.Errorf("admin: create table %q: %w", p.Table, err)
	}
	return nil
}

// EnsureTable makes the table def declares exist, enabled and as declared,
// and is safe to run any number of times, concurrently too:
//
//   - def is validated first (PlanTable); a bad declaration fails before
//     any RPC with ErrInvalidSchema;
//   - a missing table is created with its split keys and family options,
//     then read back and checked like an existing one;
//   - an existing table is compared with def: families, every family
//     option (HBase's defaults spelled out on both sides) and the region
//     boundaries against the split keys. Any difference is a *DriftError
//     naming all of them (errors.Is(err, ErrDrift)); EnsureTable never
//     alters a drifted table;
//   - a table as declared but disabled (an interrupted drop or truncate)
//     is enabled; one that another procedure is still enabling is waited
//     for, up to WithEnableWait, then reported with ErrNotEnabled.
//
// If the create call fails but the table exists afterwards (the answer
// was lost, the context ended while the master finished the procedure,
// or another run created it first), the table is checked as above, so a
// later run completes or reports whatever an earlier one left.
func (a *Admin) EnsureTable(ctx context.Context, def schema.Definition) (Outcome, error) {
	p, err := PlanTable(def)
	if err != nil {
		return 0, err
	}
	return a.ensureDef(ctx, p, def, nil)
}

func (a *Admin) ensure(ctx context.Context, p *Plan) (Outcome, error) {
	exists, err := a.c.TableExists(ctx, p.Table)
	if err != nil {
		return 0, fmt.Errorf("admin: table exists %q: %w", p.Table, err)
	}
	outcome := Unchanged
	if !exists {
		cerr := a.create(ctx, p)
		if cerr != nil && !errors.Is(cerr, hbapi.ErrTableExists) {
			// The master may have created the table although the call
			// failed; if so, check it like any existing table.
			if ok, err := a.c.TableExists(ctx, p.Table); err != nil || !ok {
				return 0, cerr
			}
		}
		if !errors.Is(cerr, hbapi.ErrTableExists) {
			outcome = Created
		}
	}
	diffs, enabled, desc, err := a.inspectDesc(ctx, p)
	if err != nil {
		return 0, err
	}
	if len(diffs) > 0 {
		return 0, &DriftError{Table: p.Table, Diffs: diffs, Disabled: !enabled}
	}
	if err := a.storeDocument(ctx, p, desc); err != nil {
		return 0, err
	}
	if enabled {
		return outcome, nil
	}
	if err := a.enable(ctx, p.Table); err != nil {
		return 0, err
	}
	if outcome == Unchanged {
		outcome = Enabled
	}
	return outcome, nil
}

// enable enables a disabled table. If the master answers that the table
// is not disabled, another procedure is enabling it (a create still
// assigning regions, a concurrent EnsureTable): wait for it within the
// enable-wait budget.
func (a *Admin) enable(ctx context.Context, table string) error {
	err := a.c.EnableTable(ctx, table)
	if err == nil {
		return nil
	}
	if !errors.Is(err, hbapi.ErrTableNotDisabled) {
		return fmt.Errorf("admin: enable table %q: %w", table, err)
	}
	deadline := time.Now().Add(a.opts.enableWait)
	for {
		on, err := a.c.IsTableEnabled(ctx, table)
		if err != nil {
			return fmt.Errorf("admin: is table enabled %q: %w", table, err)
		}
		if on {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: %q is held by another procedure (still enabling after %v); run again later",
				ErrNotEnabled, table, a.opts.enableWait)
		}
		t := time.NewTimer(a.opts.pollEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("admin: waiting for %q to be enabled: %w", table, ctx.Err())
		case <-t.C:
		}
	}
}

// Check compares the live table with def without changing anything and
// returns the differences (nil when there are none) and whether the table
// is enabled. A missing table is an error wrapping hbase.ErrTableNotFound.
func (a *Admin) Check(ctx context.Context, def schema.Definition) ([]Diff, bool, error) {
	p, err := PlanTable(def)
	if err != nil {
		return nil, false, err
	}
	return a.inspect(ctx, p)
}

func (a *Admin) inspect(ctx context.Context, p *Plan) ([]Diff, bool, error) {
	diffs, enabled, _, err := a.inspectDesc(ctx, p)
	return diffs, enabled, err
}

// inspectDesc is inspect, also returning the live descriptor.
func (a *Admin) inspectDesc(ctx context.Context, p *Plan) ([]Diff, bool, hbapi.TableDescriptor, error) {
	var none hbapi.TableDescriptor
	desc, err := a.c.DescribeTable(ctx, p.Table)
	if err != nil {
		return nil, false, none, fmt.Errorf("admin: describe table %q: %w", p.Table, err)
	}
	regions, err := a.c.TableRegions(ctx, p.Table)
	if err != nil {
		return nil, false, none, fmt.Errorf("admin: table regions %q: %w", p.Table, err)
	}
	enabled, err := a.c.IsTableEnabled(ctx, p.Table)
	if err != nil {
		return nil, false, none, fmt.Errorf("admin: is table enabled %q: %w", p.Table, err)
	}
	diffs, err := familyDiffs(p, desc)
	if err != nil {
		return nil, false, none, err
	}
	if d, ok := splitDiff(p.SplitKeys, boundaries(regions), a.opts.grownSplits); ok {
		diffs = append(diffs, d)
	}
	if d, ok := documentDiff(p, desc); ok {
		diffs = append(diffs, d)
	}
	return diffs, enabled, desc, nil
}

func familyDiffs(p *Plan, desc hbapi.TableDescriptor) ([]Diff, error) {
	described := make(map[string]map[string]string, len(desc.Families))
	for _, f := range desc.Families {
		described[f.Name] = f.Attributes
	}
	fds, err := schema.DiffFamilies(p.Families, described)
	if err != nil {
		return nil, fmt.Errorf("admin: table %q: cannot read the live family options: %w", p.Table, err)
	}
	var out []Diff
	for _, fd := range fds {
		switch {
		case fd.Missing:
			out = append(out, Diff{Kind: FamilyMissing, Family: fd.Family})
		case fd.Extra:
			out = append(out, Diff{Kind: FamilyExtra, Family: fd.Family})
		default:
			for _, o := range fd.Options {
				out = append(out, Diff{Kind: FamilyOption, Family: fd.Family, Option: o.Option, Declared: o.Declared, Actual: o.Actual})
			}
		}
	}
	return out, nil
}

// boundaries returns the start keys of every region but the first, in
// order: the split keys the table has now.
func boundaries(regions []hbapi.RegionInfo) [][]byte {
	rs := slices.Clone(regions)
	slices.SortFunc(rs, func(a, b hbapi.RegionInfo) int { return bytes.Compare(a.StartKey, b.StartKey) })
	var out [][]byte
	for _, r := range rs {
		// A split parent still listed next to its daughters repeats a
		// start key; count each boundary once.
		if len(r.StartKey) > 0 && (len(out) == 0 || !bytes.Equal(out[len(out)-1], r.StartKey)) {
			out = append(out, r.StartKey)
		}
	}
	return out
}

// splitDiff compares declared split keys with live boundaries. With grown
// set, boundaries beyond the declared ones are accepted.
func splitDiff(declared, actual [][]byte, grown bool) (Diff, bool) {
	var missing, unexpected [][]byte
	for _, k := range declared {
		if !containsKey(actual, k) {
			missing = append(missing, k)
		}
	}
	if !grown {
		for _, k := range actual {
			if !containsKey(declared, k) {
				unexpected = append(unexpected, k)
			}
		}
	}
	if len(missing) == 0 && len(unexpected) == 0 {
		return Diff{}, false
	}
	return Diff{Kind: SplitKeys, DeclaredSplits: declared, ActualSplits: actual, Missing: missing, Unexpected: unexpected}, true
}

func containsKey(ks [][]byte, k []byte) bool {
	return slices.ContainsFunc(ks, func(x []byte) bool { return bytes.Equal(x, k) })
}

// TableResult is the outcome of one table of EnsureTables.
type TableResult struct {
	Table   string
	Outcome Outcome // zero ("failed") when Err is set
	Err     error
}

// EnsureTables runs EnsureTable for each definition, in order: a data
// table and its index tables (see WithIndexes), or the tables of a schema
// file. Every definition is validated before the first RPC, so one bad
// declaration changes nothing. A table that fails does not stop the
// others; the error joins every failure (errors.Is and errors.As see each
// one) and the results say what happened to each table.
//
// A new index table (schema.IndexDefinition) starts active when its data
// table is created by the same call, is missing or holds no row; it
// starts building when the data table holds rows, and is reported as
// NeedsBuilding, on this run and on every later one, until it is built.
// Pass the tables of a schema with WithIndexes or WithIndexTables.
func (a *Admin) EnsureTables(ctx context.Context, defs ...schema.Definition) ([]TableResult, error) {
	plans := make([]*Plan, len(defs))
	seen := make(map[string]bool, len(defs))
	for i, d := range defs {
		p, err := PlanTable(d)
		if err != nil {
			return nil, err
		}
		if seen[p.Table] {
			return nil, fmt.Errorf("%w: table %q declared twice", ErrInvalidSchema, p.Table)
		}
		seen[p.Table] = true
		plans[i] = p
	}
	out := make([]TableResult, len(plans))
	for i, p := range plans {
		out[i].Table = p.Table
	}
	var errs []error
	fresh := make(map[string]bool)
	for i, p := range plans {
		o, err := a.ensureDef(ctx, p, defs[i], fresh)
		out[i].Outcome, out[i].Err = o, err
		fresh[p.Table] = o == Created
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	return out, errors.Join(errs...)
}

// WithIndexes returns the table and its index tables as definitions, for
// EnsureTables: an index is a table of its own, with its own families and
// split keys.
func WithIndexes[T any](t *schema.Table[T]) []schema.Definition {
	out := []schema.Definition{t}
	for _, ix := range t.Indexes() {
		out = append(out, ix)
	}
	return out
}
