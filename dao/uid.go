package dao

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Errors of a UID table (UIDs).
var (
	// ErrInvalidUID reports bad input to a UIDs call: an empty or too long
	// name, an unknown kind, an id of 0 or wider than its kind. The
	// concrete error is a *UIDError.
	ErrInvalidUID = errors.New("dao: invalid uid input")
	// ErrUIDExhausted reports a kind whose counter went past the largest
	// id of its width: no new name of that kind gets an id. Widening a
	// kind is a data migration.
	ErrUIDExhausted = errors.New("dao: uid counter exhausted")
	// ErrUIDNotFound reports an id no name holds (Name).
	ErrUIDNotFound = errors.New("dao: uid not assigned")
	// ErrUIDConflict reports a UID table written outside this protocol:
	// the reverse row of an id the counter just handed out is taken.
	ErrUIDConflict = errors.New("dao: uid table inconsistent")
)

// UIDError is the error of a UIDs call. It names the kind and says why;
// like the package's other errors it never quotes a name.
type UIDError struct {
	Kind   string
	Reason string
	Err    error // a sentinel of this package, and the cause if any
}

func (e *UIDError) Error() string {
	return "dao: uid kind " + strconv.Quote(e.Kind) + ": " + e.Reason
}

// Unwrap returns the cause.
func (e *UIDError) Unwrap() error { return e.Err }

// MaxUIDName is the longest name a UID table takes, in bytes.
const MaxUIDName = 1024

// DefaultUIDCacheSize is the number of names (and as many ids) a UIDs
// keeps in memory by default.
const DefaultUIDCacheSize = 1 << 16

// UIDClient is the part of hbase.DataClient a UID table calls.
type UIDClient interface {
	Get(ctx context.Context, g *hbapi.Get) (*hbapi.Result, error)
	Increment(ctx context.Context, inc *hbapi.Increment) (*hbapi.Result, error)
	CheckAndMutate(ctx context.Context, cam *hbapi.CheckAndMutate) (bool, error)
	Scan(ctx context.Context, s *hbapi.Scan) (hbapi.Scanner, error)
}

var _ UIDClient = hbapi.DataClient(nil)

// UIDKind declares a kind of name in a UID table and the width of its ids
// in bytes (1 to schema.MaxUIDWidth). Every user of a table must declare
// the same width for a kind; changing it is a data migration.
type UIDKind struct {
	Name  string
	Width int
}

// UIDOption configures a UID table (NewUIDs).
type UIDOption func(*uidOptions)

type uidOptions struct {
	cache int
	err   error
}

// WithUIDCacheSize bounds the names, and separately the ids, a UIDs keeps
// in memory (default DefaultUIDCacheSize; 0 caches nothing). When full, an
// arbitrary entry makes room.
func WithUIDCacheSize(n int) UIDOption {
	return func(o *uidOptions) {
		if n < 0 && o.err == nil {
			o.err = fmt.Errorf("dao: %w: WithUIDCacheSize(%d): want >= 0", ErrInvalidOption, n)
		}
		o.cache = n
	}
}

// UIDs is a UID table (seed 004's LOG_TYPES, schema.UIDTable): it maps the
// names of each kind (hostnames, event types) to fixed-width ids, so that a
// row key holds a short id instead of a long name, and back. Ids are
// assigned on first use, atomically: two writers, in one process or in
// many, never get two ids for one name.
//
// Assigning a name (ID) costs an Increment of the kind's counter row and
// two CheckAndMutates: the reverse row id → name, written if absent, then
// the forward row name → id, written if absent. A writer whose forward
// write loses to another's reads the winner's id and returns it; the
// reverse row of its own id is left behind, unused (no key ever holds that
// id), and Check reports it. A writer that dies between the two writes
// leaves the same kind of row, or, between the Increment and the first
// write, an id no row mentions. Ids start at 1; 0 is never assigned.
//
// Names and ids never change once assigned, so both directions are cached
// in memory (WithUIDCacheSize). A UIDs is safe for concurrent use.
type UIDs struct {
	c     UIDClient
	name  string
	t     *schema.Table[schema.UIDRow]
	kinds map[string]int // kind -> width
	cache uidCache
}

// NewUIDs returns the UID table called table (a name on the cluster,
// "table" or "namespace:table") on client c, with its kinds. Create the
// table with admin from Table.
func NewUIDs(c UIDClient, table string, kinds []UIDKind, opts ...UIDOption) (*UIDs, error) {
	if c == nil || isNilPointer(c) {
		return nil, fmt.Errorf("dao: %w: nil client", ErrInvalidOption)
	}
	tn, err := hbapi.ParseTableName(table)
	if err != nil {
		return nil, fmt.Errorf("dao: %w: UID table %q: %w", ErrInvalidOption, table, err)
	}
	o := uidOptions{cache: DefaultUIDCacheSize}
	for i, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("dao: %w: UID option %d is nil", ErrInvalidOption, i)
		}
		opt(&o)
	}
	if o.err != nil {
		return nil, o.err
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("dao: %w: UID table %q: no kinds", ErrInvalidOption, table)
	}
	u := &UIDs{c: c, name: tn.String(), kinds: make(map[string]int, len(kinds))}
	for _, k := range kinds {
		switch {
		case !schema.ValidUIDKind(k.Name):
			return nil, fmt.Errorf("dao: %w: UID kind %q: want 1 to 64 of a-z, 0-9, '_', '-', '.'", ErrInvalidOption, k.Name)
		case k.Width < 1 || k.Width > schema.MaxUIDWidth:
			return nil, fmt.Errorf("dao: %w: UID kind %q: width %d, want 1 to %d", ErrInvalidOption, k.Name, k.Width, schema.MaxUIDWidth)
		}
		if _, dup := u.kinds[k.Name]; dup {
			return nil, fmt.Errorf("dao: %w: UID kind %q declared twice", ErrInvalidOption, k.Name)
		}
		u.kinds[k.Name] = k.Width
	}
	if u.t, err = schema.UIDTable(tn.String()); err != nil {
		return nil, err
	}
	u.cache.max = o.cache
	return u, nil
}

// Table returns the UID table's declaration under its name on the
// cluster (Table().Name()); hand it to admin.EnsureTables.
func (u *UIDs) Table() schema.Definition { return u.t }

// Width returns the id width of kind, and whether the table has the kind.
func (u *UIDs) Width(kind string) (int, bool) {
	w, ok := u.kinds[kind]
	return w, ok
}

// width checks kind.
func (u *UIDs) width(kind string) (int, error) {
	w, ok := u.kinds[kind]
	if !ok {
		return 0, &UIDError{Kind: kind, Reason: "unknown kind", Err: ErrInvalidUID}
	}
	return w, nil
}

// checkName checks kind and name.
func (u *UIDs) checkName(kind, name string) (int, error) {
	w, err := u.width(kind)
	if err != nil {
		return 0, err
	}
	switch {
	case name == "":
		return 0, &UIDError{Kind: kind, Reason: "empty name", Err: ErrInvalidUID}
	case len(name) > MaxUIDName:
		return 0, &UIDError{Kind: kind, Reason: "name longer than " + strconv.Itoa(MaxUIDName) + " bytes", Err: ErrInvalidUID}
	}
	return w, nil
}

// row returns the row key of a UID table row. It fails only on a kind
// NewUIDs would refuse.
func (u *UIDs) row(typ, kind, key string) ([]byte, error) {
	k, err := u.t.AppendKey(nil, &schema.UIDRow{Type: typ, Kind: kind, Key: key})
	if err != nil {
		return nil, &UIDError{Kind: kind, Reason: "cannot encode row key", Err: errors.Join(ErrInvalidUID, err)}
	}
	return k, nil
}

var (
	uidFamily  = []byte(schema.UIDFamily)
	uidIDQual  = []byte(schema.UIDIDQualifier)
	uidNameQ   = []byte(schema.UIDNameQualifier)
	uidCounter = []byte(schema.UIDCounterQualifier)
)

// ID returns the id of name of kind, assigning the next id of the kind
// when the name has none yet. Two calls for one name, in any processes,
// return the same id. A kind whose ids are used up is an error wrapping
// ErrUIDExhausted; bad input an *UIDError wrapping ErrInvalidUID.
func (u *UIDs) ID(ctx context.Context, kind, name string) (uint64, error) {
	w, err := u.checkName(kind, name)
	if err != nil {
		return 0, err
	}
	if id, ok := u.cache.id(kind, name); ok {
		return id, nil
	}
	id, ok, err := u.lookup(ctx, kind, name, w)
	if err != nil || ok {
		return id, err
	}
	return u.assign(ctx, kind, name, w)
}

// Lookup returns the id of name of kind and whether it has one, without
// assigning.
func (u *UIDs) Lookup(ctx context.Context, kind, name string) (uint64, bool, error) {
	w, err := u.checkName(kind, name)
	if err != nil {
		return 0, false, err
	}
	if id, ok := u.cache.id(kind, name); ok {
		return id, true, nil
	}
	return u.lookup(ctx, kind, name, w)
}

// lookup reads the forward row of name.
func (u *UIDs) lookup(ctx context.Context, kind, name string, w int) (uint64, bool, error) {
	fwd, err := u.row(schema.UIDForwardRow, kind, name)
	if err != nil {
		return 0, false, err
	}
	res, err := u.c.Get(ctx, &hbapi.Get{Table: u.name, Row: fwd})
	if err != nil {
		return 0, false, fmt.Errorf("dao: uid %q: get: %w", u.name, err)
	}
	v := res.Value(uidFamily, uidIDQual)
	if v == nil {
		return 0, false, nil
	}
	id, rest, err := schema.DecodeUID(v, w)
	if err != nil || len(rest) != 0 || id == 0 {
		return 0, false, &UIDError{Kind: kind, Reason: "forward row holds an id of another width", Err: errors.Join(ErrUIDConflict, err)}
	}
	u.cache.put(kind, name, id)
	return id, true, nil
}

// assign hands out the next id of kind to name (see UIDs).
func (u *UIDs) assign(ctx context.Context, kind, name string, w int) (uint64, error) {
	ctr, err := u.row(schema.UIDCounterRow, kind, "")
	if err != nil {
		return 0, err
	}
	fwd, err := u.row(schema.UIDForwardRow, kind, name)
	if err != nil {
		return 0, err
	}
	res, err := u.c.Increment(ctx, &hbapi.Increment{Table: u.name, Row: ctr,
		Deltas: map[string]map[string]int64{schema.UIDFamily: {schema.UIDCounterQualifier: 1}}})
	if err != nil {
		return 0, fmt.Errorf("dao: uid %q: increment: %w", u.name, err)
	}
	v := res.Value(uidFamily, uidCounter)
	if len(v) != 8 {
		return 0, &UIDError{Kind: kind, Reason: "counter is not an 8-byte integer", Err: ErrUIDConflict}
	}
	n := int64(binary.BigEndian.Uint64(v))
	if n < 1 || uint64(n) > schema.MaxUID(w) {
		return 0, &UIDError{Kind: kind, Reason: "no id left in " + strconv.Itoa(w) + " bytes", Err: ErrUIDExhausted}
	}
	id := uint64(n)
	idb, _ := schema.AppendUID(nil, id, w) // id fits: checked above
	rev, err := u.row(schema.UIDReverseRow, kind, string(idb))
	if err != nil {
		return 0, err
	}
	ok, err := u.c.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: u.name, Row: rev, Family: uidFamily, Qualifier: uidNameQ,
		Mutations: []hbapi.Mutation{&hbapi.Put{Values: map[string]map[string][]byte{schema.UIDFamily: {schema.UIDNameQualifier: []byte(name)}}}}})
	if err != nil {
		return 0, fmt.Errorf("dao: uid %q: write reverse row: %w", u.name, err)
	}
	if !ok {
		return 0, &UIDError{Kind: kind, Reason: "reverse row of a new id is taken", Err: ErrUIDConflict}
	}
	ok, err = u.c.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: u.name, Row: fwd, Family: uidFamily, Qualifier: uidIDQual,
		Mutations: []hbapi.Mutation{&hbapi.Put{Values: map[string]map[string][]byte{schema.UIDFamily: {schema.UIDIDQualifier: idb}}}}})
	if err != nil {
		return 0, fmt.Errorf("dao: uid %q: write forward row: %w", u.name, err)
	}
	if !ok {
		// Another writer gave the name its id first: ours stays unused.
		winner, found, err := u.lookup(ctx, kind, name, w)
		switch {
		case err != nil:
			return 0, err
		case !found:
			return 0, &UIDError{Kind: kind, Reason: "forward row vanished after a lost write", Err: ErrUIDConflict}
		}
		return winner, nil
	}
	u.cache.put(kind, name, id)
	u.cache.putName(kind, id, name)
	return id, nil
}

// Name returns the name whose id of kind is id. An id no name holds is an
// error wrapping ErrUIDNotFound; id 0 or an id wider than the kind an
// *UIDError wrapping ErrInvalidUID. The reverse row a lost race left (see
// UIDs) still names its name, although no key holds its id.
func (u *UIDs) Name(ctx context.Context, kind string, id uint64) (string, error) {
	w, err := u.width(kind)
	if err != nil {
		return "", err
	}
	if id == 0 || id > schema.MaxUID(w) {
		return "", &UIDError{Kind: kind, Reason: "id 0 or wider than " + strconv.Itoa(w) + " bytes", Err: ErrInvalidUID}
	}
	if name, ok := u.cache.name(kind, id); ok {
		return name, nil
	}
	idb, _ := schema.AppendUID(nil, id, w)
	rev, err := u.row(schema.UIDReverseRow, kind, string(idb))
	if err != nil {
		return "", err
	}
	res, err := u.c.Get(ctx, &hbapi.Get{Table: u.name, Row: rev})
	if err != nil {
		return "", fmt.Errorf("dao: uid %q: get: %w", u.name, err)
	}
	v := res.Value(uidFamily, uidNameQ)
	if len(v) == 0 {
		return "", &UIDError{Kind: kind, Reason: "id " + strconv.FormatUint(id, 10) + " not assigned", Err: ErrUIDNotFound}
	}
	name := string(v)
	u.cache.putName(kind, id, name)
	return name, nil
}

// uidCache holds names and ids already read or assigned, each direction
// bounded by max entries.
type uidCache struct {
	mu    sync.Mutex
	max   int
	ids   map[uidNameKey]uint64
	names map[uidIDKey]string
}

type uidNameKey struct{ kind, name string }

type uidIDKey struct {
	kind string
	id   uint64
}

func (c *uidCache) id(kind, name string) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.ids[uidNameKey{kind, name}]
	return id, ok
}

func (c *uidCache) name(kind string, id uint64) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name, ok := c.names[uidIDKey{kind, id}]
	return name, ok
}

func (c *uidCache) put(kind, name string, id uint64) { cachePut(c, &c.ids, uidNameKey{kind, name}, id) }

func (c *uidCache) putName(kind string, id uint64, name string) {
	cachePut(c, &c.names, uidIDKey{kind, id}, name)
}

// cachePut stores k → v in *m, one of c's maps, making room first.
func cachePut[K comparable, V any](c *uidCache, m *map[K]V, k K, v V) {
	if c.max == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if *m == nil {
		*m = make(map[K]V)
	}
	makeRoom(*m, c.max)
	(*m)[k] = v
}

// makeRoom deletes an arbitrary entry of m when it holds max or more.
func makeRoom[K comparable, V any](m map[K]V, max int) {
	for k := range m {
		if len(m) < max {
			return
		}
		delete(m, k)
	}
}
