package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// ErrIndexBuilding reports a read through an index that is building
// (schema.IndexBuilding): records written before the index existed may
// have no entry yet, so an answer from it could miss them. Build the
// index, or allow incomplete reads (Config.ReadIncomplete). The error is
// a *BuildingError.
var ErrIndexBuilding = errors.New("index: index is building")

// BuildingError is a read refused because its index is building.
type BuildingError struct {
	Index string // index table on the cluster
	Data  string // data table on the cluster
}

func (e *BuildingError) Error() string {
	return fmt.Sprintf("index: index %s of %s is building: records written before it existed may have no entry; "+
		"build it (dao Repo.BuildIndex, or hbkit index build) or read with incomplete reads allowed", e.Index, e.Data)
}

// Unwrap returns ErrIndexBuilding.
func (e *BuildingError) Unwrap() error { return ErrIndexBuilding }

// stateReader is the call that reads an index table's state (its
// descriptor's schema.IndexStateAttribute). A Client that implements it,
// as the real client and the fake do, has its readers refuse an index
// that is building; over one that does not, or refuses the call
// (errors.ErrUnsupported), every index counts as active.
type stateReader interface {
	DescribeTable(ctx context.Context, table string) (hbapi.TableDescriptor, error)
}

// stateWriter is what Build needs besides the Client: reading and
// changing the index table's descriptor.
type stateWriter interface {
	stateReader
	ModifyTable(ctx context.Context, desc hbapi.TableDescriptor) error
}

// State returns the state of the named index, read from its table's
// descriptor now (schema.IndexActive over a Client that is no
// stateReader, or whose DescribeTable fails with errors.ErrUnsupported).
func (t *Table[T]) State(ctx context.Context, index string) (schema.IndexState, error) {
	s, err := t.index(index)
	if err != nil {
		return "", err
	}
	sr, ok := t.c.(stateReader)
	if !ok {
		return schema.IndexActive, nil
	}
	desc, err := sr.DescribeTable(ctx, s.name)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return schema.IndexActive, nil // a client that refuses the call is one without it
	case err != nil:
		return "", fmt.Errorf("index: state of %s: %w", s.name, err)
	}
	return schema.IndexStateOf(desc.Attributes), nil
}

// readable returns the named index for a read, or a *BuildingError when
// it is building and incomplete reads are not allowed. An index once seen
// active is not asked again: nothing turns an active index back.
func (t *Table[T]) readable(ctx context.Context, index string) (*ixState[T], error) {
	s, err := t.index(index)
	if err != nil || t.o.readIncomplete || s.active.Load() {
		return s, err
	}
	st, err := t.State(ctx, index)
	if err != nil {
		return nil, err
	}
	if st == schema.IndexBuilding {
		return nil, &BuildingError{Index: s.name, Data: t.name}
	}
	s.active.Store(true)
	return s, nil
}

// Build fills the named index ("" : every index of the table) with the
// entries of the records written before it existed, while writers keep
// writing, then marks it active so that readers answer from it.
//
// Writers maintain every index the schema declares from the moment its
// table exists, building or not (their puts read first while an index is
// building: see settled). Build then runs Check in ModeRebuild (its
// options, WithProgress and WithResume among them, apply): every record
// is rewritten with its entries through the protocol, conditioned on the
// version of the data row it read, so an entry a concurrent writer
// produced for a newer version is never overwritten, and rows written
// without the protocol (by a store without the index, or another client)
// are taken into it, their entries verified. It is idempotent: a Build
// stopped half way is run again. The Client must be a stateWriter
// (errors.ErrUnsupported otherwise). See docs/index-state.md.
func (t *Table[T]) Build(ctx context.Context, index string, opts ...CheckOption) (Report, error) {
	targets, sw, err := t.buildTargets(ctx, index)
	if err != nil {
		return Report{}, err
	}
	rep, err := t.Check(ctx, ModeRebuild, opts...)
	if err != nil {
		return rep, fmt.Errorf("index: build %s: %w", t.name, err)
	}
	for _, s := range targets {
		if err := t.activate(ctx, sw, s); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// Activate marks the named index ("": every index) active, so that
// readers answer from it: the last step of Build, for a build whose
// entries were written by other means (a job's CheckRange over every
// unit of the data table). Marking an index active whose older records
// have no entry makes its reads miss them. The Client must be a
// stateWriter (errors.ErrUnsupported otherwise).
func (t *Table[T]) Activate(ctx context.Context, index string) error {
	targets, sw, err := t.buildTargets(ctx, index)
	if err != nil {
		return err
	}
	for _, s := range targets {
		if err := t.activate(ctx, sw, s); err != nil {
			return err
		}
	}
	return nil
}

// buildTargets returns the indexes a build of index ("": every one)
// marks active, and the client that marks them, after checking that it
// can read their states.
func (t *Table[T]) buildTargets(ctx context.Context, index string) ([]*ixState[T], stateWriter, error) {
	targets := t.ixs
	if index != "" {
		s, err := t.index(index)
		if err != nil {
			return nil, nil, err
		}
		targets = []*ixState[T]{s}
	}
	sw, ok := t.c.(stateWriter)
	if !ok {
		return nil, nil, fmt.Errorf("index: build: the client cannot read or change table descriptors: %w", errors.ErrUnsupported)
	}
	for _, s := range targets { // before the long part: can the state be changed at all?
		if _, err := sw.DescribeTable(ctx, s.name); err != nil {
			return nil, nil, fmt.Errorf("index: build: state of %s: %w", s.name, err)
		}
	}
	return targets, sw, nil
}

// activate marks index s active in its table's descriptor, unless it is
// already.
func (t *Table[T]) activate(ctx context.Context, sw stateWriter, s *ixState[T]) error {
	desc, err := sw.DescribeTable(ctx, s.name)
	if err != nil {
		return fmt.Errorf("index: build: state of %s: %w", s.name, err)
	}
	if schema.IndexStateOf(desc.Attributes) == schema.IndexBuilding {
		attrs := maps.Clone(desc.Attributes)
		if attrs == nil {
			attrs = map[string]string{}
		}
		attrs[schema.IndexStateAttribute] = string(schema.IndexActive)
		desc.Attributes = attrs
		if err := sw.ModifyTable(ctx, desc); err != nil {
			return fmt.Errorf("index: build: mark %s active: %w", s.name, err)
		}
	}
	s.active.Store(true)
	return nil
}

// settled reports whether every index is known active, so that a put may
// skip its read (blind). While one is building, the data table holds rows
// written before it, which have no version cell for a blind put's
// condition to find: a blind put would replace such a row without
// withdrawing the entry Build may have written for it, or below its
// cells' timestamps. Writers read the states at most once a second, and
// never again once all are active; a state that cannot be read counts as
// building (the put reads first, which is only slower).
func (t *Table[T]) settled(ctx context.Context) bool {
	last := t.settledAt.Load()
	if last < 0 {
		return true
	}
	now := time.Now().UnixNano()
	if last != 0 && now-last < int64(time.Second) || !t.settledAt.CompareAndSwap(last, now) {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, stateReadTimeout)
	defer cancel()
	for _, s := range t.ixs {
		if s.active.Load() {
			continue
		}
		if st, err := t.State(ctx, s.declared); err != nil || st == schema.IndexBuilding {
			return false
		}
		s.active.Store(true)
	}
	t.settledAt.Store(-1)
	return true
}

// stateReadTimeout bounds a writer's read of the indexes' states.
const stateReadTimeout = 5 * time.Second
