package jobs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// DefaultStoreTable is the table that keeps the checkpoints of every job.
const DefaultStoreTable = "hbkit_jobs"

// DefaultLease is how long a claim on a unit lasts without a commit or a
// renewal before another worker may take the unit over.
const DefaultLease = 30 * time.Second

// Errors of the checkpoint store.
var (
	// ErrLeaseLost: another worker took the unit over (the lease had
	// expired), so this worker's commit was refused and it must stop.
	ErrLeaseLost = errors.New("jobs: lease lost: another worker owns the unit")
	// ErrUnitBusy: the unit is leased by a live worker.
	ErrUnitBusy = errors.New("jobs: unit is leased by another worker")
	// ErrUnitDone: the unit is already done.
	ErrUnitDone = errors.New("jobs: unit is done")
	// ErrNoPlan: the job has no plan in the store yet.
	ErrNoPlan = errors.New("jobs: job has no plan")
)

// The store's one family and its columns.
var (
	family = []byte("j")

	colSpec     = "spec"     // job row: the Spec, JSON
	colPlan     = "plan"     // job row: the units planned, JSON
	colReady    = "ready"    // job row: every planned unit has its row
	colFinish   = "finish"   // job row: the lease of the Finisher call
	colFinished = "finished" // job row: the Finisher returned nil

	colUnit     = "unit"     // unit row: the Unit, JSON (Stop shrinks when it is re-split)
	colShard    = "shard"    // unit row: the shard key, decimal
	colState    = "state"    // unit row: pending, running, done
	colLease    = "lease"    // unit row: "expiryMs nonce owner"
	colAfter    = "after"    // unit row: the last row handled
	colCounts   = "counts"   // unit row: the unit's cumulative Counts, JSON
	colAttempts = "attempts" // unit row: claims so far, decimal
	colChildren = "children" // unit row: the units re-split off it, JSON
)

// State is where a unit stands.
type State string

const (
	StatePending State = "pending"
	StateRunning State = "running"
	StateDone    State = "done"
)

// Store keeps jobs' plans and units' checkpoints in an HBase table: one
// row per job (its Spec and plan, written once) and one row per unit
// (state, lease, position, counts). Every change of a unit row is a
// CheckAndMutate on its lease, so a worker that lost its lease can no
// longer move the unit's position or add to its counts. A Store is safe
// for concurrent use.
type Store struct {
	c     hbapi.DataClient
	table string
	lease time.Duration
	now   func() time.Time
}

// StoreOption configures a Store.
type StoreOption func(*storeOptions)

type storeOptions struct {
	table string
	lease time.Duration
	now   func() time.Time
}

// WithStoreTable names the checkpoint table (default DefaultStoreTable).
func WithStoreTable(name string) StoreOption {
	return func(o *storeOptions) { o.table = name }
}

// WithLease sets how long a claim lasts without a commit or a renewal
// (default DefaultLease). Workers renew at a third of it.
func WithLease(d time.Duration) StoreOption {
	return func(o *storeOptions) { o.lease = d }
}

// WithClock sets the clock of lease expiries (default time.Now).
func WithClock(now func() time.Time) StoreOption {
	return func(o *storeOptions) { o.now = now }
}

func (o *storeOptions) validate() error {
	switch {
	case o.table == "":
		return fmt.Errorf("%w: empty store table", ErrSpec)
	case o.lease <= 0:
		return fmt.Errorf("%w: lease %v", ErrSpec, o.lease)
	case o.now == nil:
		return fmt.Errorf("%w: WithClock(nil)", ErrSpec)
	}
	return nil
}

func storeOpts(opts []StoreOption) (storeOptions, error) {
	o := storeOptions{table: DefaultStoreTable, lease: DefaultLease, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	return o, o.validate()
}

// NewStore returns the store kept in the table of opts, through c.
func NewStore(c hbapi.DataClient, opts ...StoreOption) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client", ErrSpec)
	}
	o, err := storeOpts(opts)
	if err != nil {
		return nil, err
	}
	return &Store{c: c, table: o.table, lease: o.lease, now: o.now}, nil
}

// Table is the name of the checkpoint table.
func (s *Store) Table() string { return s.table }

// StoreAdmin is what EnsureStore calls.
type StoreAdmin interface {
	TableExists(ctx context.Context, table string) (bool, error)
	CreateTable(ctx context.Context, desc hbapi.TableDescriptor, splitKeys [][]byte) error
}

// EnsureStore creates the checkpoint table (WithStoreTable, default
// DefaultStoreTable) unless it exists.
func EnsureStore(ctx context.Context, a StoreAdmin, opts ...StoreOption) error {
	o, err := storeOpts(opts)
	if err != nil {
		return err
	}
	ok, err := a.TableExists(ctx, o.table)
	if err != nil || ok {
		return err
	}
	desc := hbapi.TableDescriptor{Name: o.table, Families: []hbapi.FamilyDescriptor{{Name: string(family)}}}
	if err := a.CreateTable(ctx, desc, nil); err != nil && !errors.Is(err, hbapi.ErrTableExists) {
		return fmt.Errorf("jobs: create store %s: %w", o.table, err)
	}
	return nil
}

func jobKey(job string) []byte { return []byte(job) }

func unitKey(job, unit string) []byte { return []byte(job + "\x00" + unit) }

func cell(col string, v []byte) hbapi.PutCell {
	return hbapi.PutCell{Family: string(family), Qualifier: col, Value: v}
}

func jsonCell(col string, v any) hbapi.PutCell {
	b, err := json.Marshal(v)
	if err != nil { // plain data: cannot fail
		panic(err)
	}
	return cell(col, b)
}

// lease is the value of a lease column: who holds it until when.
type lease struct {
	expiry time.Time
	nonce  string
	owner  string
}

func parseLease(b []byte) lease {
	f := strings.SplitN(string(b), " ", 3)
	if len(f) < 3 {
		return lease{}
	}
	ms, _ := strconv.ParseInt(f[0], 10, 64)
	return lease{expiry: time.UnixMilli(ms), nonce: f[1], owner: f[2]}
}

// token returns a new lease value for owner, expiring a lease from now.
func (s *Store) token(owner string, expiry time.Time) []byte {
	var n [6]byte
	_, _ = rand.Read(n[:])
	return []byte(strconv.FormatInt(expiry.UnixMilli(), 10) + " " + hex.EncodeToString(n[:]) + " " + owner)
}

// free reports whether a lease value may be taken: none, or expired.
func (s *Store) free(v []byte) bool {
	return len(v) == 0 || !parseLease(v).expiry.After(s.now())
}

// swap writes cells to row when column col still holds cur, setting col to
// next. A lost answer (ErrOutcomeUnknown) is resolved by reading col back.
func (s *Store) swap(ctx context.Context, row []byte, col string, cur, next []byte, cells []hbapi.PutCell) (bool, error) {
	put := &hbapi.Put{Table: s.table, Row: row, Cells: append(cells, cell(col, next))}
	cam := &hbapi.CheckAndMutate{Table: s.table, Row: row, Family: family, Qualifier: []byte(col),
		Compare: hbapi.CompareEqual, Value: cur, Mutations: []hbapi.Mutation{put}}
	for attempt := 0; ; attempt++ {
		ok, err := s.c.CheckAndMutate(ctx, cam)
		if err == nil || !errors.Is(err, hbapi.ErrOutcomeUnknown) || attempt == 2 {
			return ok, err
		}
		r, gerr := s.c.Get(ctx, &hbapi.Get{Table: s.table, Row: row, Columns: []hbapi.Column{{Family: family, Qualifier: []byte(col)}}})
		if gerr != nil {
			return false, errors.Join(err, gerr)
		}
		switch v := r.Value(family, []byte(col)); {
		case bytes.Equal(v, next):
			return true, nil
		case !bytes.Equal(v, cur):
			return false, nil
		}
		// still cur: the lost attempt was not applied; send it again
	}
}

// UnitStatus is a unit's row in the store.
type UnitStatus struct {
	Unit
	Shard    int       `json:"shard"`
	State    State     `json:"state"`
	Owner    string    `json:"owner,omitempty"`
	Expires  time.Time `json:"expires,omitzero"`
	After    []byte    `json:"after,omitempty"`
	Counts   Counts    `json:"counts,omitempty"`
	Attempts int       `json:"attempts,omitempty"`
	Children []Unit    `json:"children,omitempty"`

	lease []byte // the raw lease value, for a claim's condition
}

func decodeUnit(r *hbapi.Result) (UnitStatus, error) {
	var u UnitStatus
	val := func(col string) []byte { return r.Value(family, []byte(col)) }
	if err := json.Unmarshal(val(colUnit), &u.Unit); err != nil {
		return u, fmt.Errorf("jobs: unit row %q: %w", r.Row(), err)
	}
	u.Shard, _ = strconv.Atoi(string(val(colShard)))
	u.State = State(val(colState))
	u.lease = bytes.Clone(val(colLease))
	if l := parseLease(u.lease); l.owner != "" {
		u.Owner, u.Expires = l.owner, l.expiry
	}
	u.After = bytes.Clone(val(colAfter))
	if len(u.After) == 0 {
		u.After = nil
	}
	u.Attempts, _ = strconv.Atoi(string(val(colAttempts)))
	if b := val(colCounts); len(b) > 0 {
		if err := json.Unmarshal(b, &u.Counts); err != nil {
			return u, fmt.Errorf("jobs: unit %s counts: %w", u.ID, err)
		}
	}
	if b := val(colChildren); len(b) > 0 {
		if err := json.Unmarshal(b, &u.Children); err != nil {
			return u, fmt.Errorf("jobs: unit %s children: %w", u.ID, err)
		}
	}
	return u, nil
}

// Units lists the units of job in the store, in ID order.
func (s *Store) Units(ctx context.Context, job string) ([]UnitStatus, error) {
	prefix := unitKey(job, "")
	var out []UnitStatus
	scan := &hbapi.Scan{Table: s.table, StartRow: prefix, StopRow: prefixEnd(prefix), Families: [][]byte{family}}
	for r, err := range hbapi.ScanAll(ctx, s.c, scan) {
		if err != nil {
			return nil, fmt.Errorf("jobs: list units of %s: %w", job, err)
		}
		u, err := decodeUnit(r)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// Unit reads one unit's row.
func (s *Store) Unit(ctx context.Context, job, unit string) (UnitStatus, error) {
	r, err := s.c.Get(ctx, &hbapi.Get{Table: s.table, Row: unitKey(job, unit), Families: [][]byte{family}})
	if err != nil {
		return UnitStatus{}, fmt.Errorf("jobs: read unit %s: %w", unit, err)
	}
	if r.Empty() {
		return UnitStatus{}, fmt.Errorf("jobs: unit %s of %s: %w", unit, job, ErrNoPlan)
	}
	return decodeUnit(r)
}

// prefixEnd returns the first key after every key starting with p.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// ensureUnits creates the rows of units that have none, pending, unit i
// with shard key shards[i].
func (s *Store) ensureUnits(ctx context.Context, job string, units []Unit, shards []int) error {
	const chunk = 500
	for i := 0; i < len(units); i += chunk {
		end := min(i+chunk, len(units))
		actions := make([]hbapi.Action, 0, end-i)
		for j := i; j < end; j++ {
			row := unitKey(job, units[j].ID)
			put := &hbapi.Put{Table: s.table, Row: row, Cells: []hbapi.PutCell{
				cell(colShard, []byte(strconv.Itoa(shards[j]))),
				cell(colState, []byte(StatePending)),
				jsonCell(colUnit, units[j]),
			}}
			actions = append(actions, &hbapi.CheckAndMutate{Table: s.table, Row: row, Family: family,
				Qualifier: []byte(colUnit), Compare: hbapi.CompareEqual, Mutations: []hbapi.Mutation{put}})
		}
		if err := s.batchRetry(ctx, actions); err != nil {
			return fmt.Errorf("jobs: create unit rows of %s: %w", job, err)
		}
	}
	return nil
}

// batchRetry runs create-if-absent actions, sending again those whose
// outcome is unknown (a second create of a row that exists does nothing).
func (s *Store) batchRetry(ctx context.Context, actions []hbapi.Action) error {
	for attempt := 0; ; attempt++ {
		_, err := s.c.Batch(ctx, actions)
		var be *hbapi.BatchError
		if err == nil || !errors.As(err, &be) || attempt == 2 {
			return err
		}
		var again []hbapi.Action
		for _, f := range be.Failed {
			if !errors.Is(f.Err, hbapi.ErrOutcomeUnknown) && !hbapi.IsRetryable(f.Err) {
				return err
			}
			again = append(again, f.Action)
		}
		actions = again
	}
}

// JobStatus is a job's row in the store.
type JobStatus struct {
	Spec     Spec   `json:"spec"`
	Plan     []Unit `json:"plan"`
	Ready    bool   `json:"ready"`    // every planned unit has its row
	Finished bool   `json:"finished"` // the Finisher ran (or there is none and the job completed)
	finish   []byte
}

// Job reads job's row; ErrNoPlan if it has none (or the store table does
// not exist).
func (s *Store) Job(ctx context.Context, job string) (JobStatus, error) {
	r, err := s.c.Get(ctx, &hbapi.Get{Table: s.table, Row: jobKey(job), Families: [][]byte{family}})
	if errors.Is(err, hbapi.ErrTableNotFound) {
		return JobStatus{}, fmt.Errorf("jobs: %s: %w (no store: %w)", job, ErrNoPlan, err)
	}
	if err != nil {
		return JobStatus{}, fmt.Errorf("jobs: read job %s: %w", job, err)
	}
	plan := r.Value(family, []byte(colPlan))
	if len(plan) == 0 {
		return JobStatus{}, fmt.Errorf("jobs: %s: %w", job, ErrNoPlan)
	}
	var js JobStatus
	if err := json.Unmarshal(plan, &js.Plan); err != nil {
		return js, fmt.Errorf("jobs: plan of %s: %w", job, err)
	}
	if err := json.Unmarshal(r.Value(family, []byte(colSpec)), &js.Spec); err != nil {
		return js, fmt.Errorf("jobs: spec of %s: %w", job, err)
	}
	js.Ready = len(r.Value(family, []byte(colReady))) > 0
	js.Finished = len(r.Value(family, []byte(colFinished))) > 0
	js.finish = bytes.Clone(r.Value(family, []byte(colFinish)))
	return js, nil
}

// SavePlan stores units as the plan of spec's job, unless a plan is
// stored already: the first process to plan wins, and every process gets
// the plan that won. It then makes sure every planned unit has its row.
func (s *Store) SavePlan(ctx context.Context, spec Spec, units []Unit) ([]Unit, error) {
	job := spec.ID()
	put := &hbapi.Put{Table: s.table, Row: jobKey(job), Cells: []hbapi.PutCell{jsonCell(colPlan, units), jsonCell(colSpec, spec)}}
	_, err := s.c.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: s.table, Row: jobKey(job), Family: family,
		Qualifier: []byte(colPlan), Compare: hbapi.CompareEqual, Mutations: []hbapi.Mutation{put}})
	if err != nil && !errors.Is(err, hbapi.ErrOutcomeUnknown) {
		return nil, fmt.Errorf("jobs: save plan of %s: %w", job, err)
	}
	js, err := s.Job(ctx, job)
	if err != nil {
		return nil, err
	}
	if !js.Ready {
		if err := s.ensureUnits(ctx, job, js.Plan, planShards(len(js.Plan))); err != nil {
			return nil, err
		}
		err := s.c.Put(ctx, &hbapi.Put{Table: s.table, Row: jobKey(job), Cells: []hbapi.PutCell{cell(colReady, []byte("1"))}})
		if err != nil {
			return nil, fmt.Errorf("jobs: save plan of %s: %w", job, err)
		}
	}
	return js.Plan, nil
}

// Reset deletes job's plan and checkpoints, so that its next run plans
// it again and runs every unit anew (a verify run again the next day).
// Workers still running it lose their leases at their next commit.
func (s *Store) Reset(ctx context.Context, job string) error {
	prefix := unitKey(job, "")
	actions := []hbapi.Action{&hbapi.Delete{Table: s.table, Row: jobKey(job)}}
	scan := &hbapi.Scan{Table: s.table, StartRow: prefix, StopRow: prefixEnd(prefix),
		Filter: &hbapi.FilterList{Filters: []hbapi.Filter{&hbapi.FirstKeyOnlyFilter{}, &hbapi.KeyOnlyFilter{}}}}
	for r, err := range hbapi.ScanAll(ctx, s.c, scan) {
		if err != nil {
			return fmt.Errorf("jobs: reset %s: %w", job, err)
		}
		actions = append(actions, &hbapi.Delete{Table: s.table, Row: bytes.Clone(r.Row())})
	}
	if _, err := s.c.Batch(ctx, actions); err != nil {
		return fmt.Errorf("jobs: reset %s: %w", job, err)
	}
	return nil
}

// planShards returns the shard keys of a plan's units: their indexes.
func planShards(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Claim takes unit of job for owner: a pending unit, or one whose lease
// expired (it resumes from its checkpoint). ErrUnitDone and ErrUnitBusy
// say why it could not.
func (s *Store) Claim(ctx context.Context, job, unit, owner string) (*Lease, error) {
	st, err := s.Unit(ctx, job, unit)
	if err != nil {
		return nil, err
	}
	return s.claim(ctx, job, st, owner)
}

// claim takes the unit read as st, if its row still holds st's lease.
func (s *Store) claim(ctx context.Context, job string, st UnitStatus, owner string) (*Lease, error) {
	switch {
	case st.State == StateDone:
		return nil, ErrUnitDone
	case !s.free(st.lease):
		return nil, ErrUnitBusy
	}
	next := s.token(owner, s.now().Add(s.lease))
	cells := []hbapi.PutCell{
		cell(colAttempts, []byte(strconv.Itoa(st.Attempts+1))),
		cell(colState, []byte(StateRunning)),
	}
	row := unitKey(job, st.ID)
	ok, err := s.swap(ctx, row, colLease, st.lease, next, cells)
	if err != nil {
		return nil, fmt.Errorf("jobs: claim %s: %w", st.ID, err)
	}
	if !ok {
		return nil, ErrUnitBusy
	}
	st.lease, st.State, st.Attempts = next, StateRunning, st.Attempts+1
	st.Owner = owner
	if st.Counts == nil {
		st.Counts = Counts{}
	}
	return &Lease{s: s, job: job, row: row, owner: owner, st: st, renewed: s.now()}, nil
}

// Lease is a worker's claim on a unit. Its methods write the unit's row
// only while the claim holds; once another worker took the unit over they
// return ErrLeaseLost. A Lease is safe for concurrent use (a renewal
// ticker and the commits of the run).
type Lease struct {
	s     *Store
	job   string
	row   []byte
	owner string

	mu      sync.Mutex
	st      UnitStatus // the row as this lease last wrote it
	renewed time.Time
}

// Status returns the unit's row as the lease holder last wrote it: its
// (possibly shrunk) Unit, position, counts and children.
func (l *Lease) Status() UnitStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.st
	st.Counts = Counts{}
	st.Counts.Add(l.st.Counts)
	return st
}

// update writes cells and a renewed lease, if the lease still holds.
func (l *Lease) update(ctx context.Context, expiry time.Time, cells []hbapi.PutCell) error {
	next := l.s.token(l.owner, expiry)
	ok, err := l.s.swap(ctx, l.row, colLease, l.st.lease, next, cells)
	if err != nil {
		return fmt.Errorf("jobs: unit %s: %w", l.st.ID, err)
	}
	if !ok {
		return fmt.Errorf("jobs: unit %s: %w", l.st.ID, ErrLeaseLost)
	}
	l.st.lease = next
	l.renewed = l.s.now()
	return nil
}

// Commit records that the rows up to and including last are handled and
// adds delta to the unit's counts: position and counts go in one write,
// so rows are counted once whoever resumes the unit. An empty last keeps
// the position (counts of no new row).
func (l *Lease) Commit(ctx context.Context, last []byte, delta Counts) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	total := Counts{}
	total.Add(l.st.Counts)
	total.Add(delta)
	after := l.st.After
	if len(last) > 0 {
		after = bytes.Clone(last)
	}
	cells := []hbapi.PutCell{cell(colAfter, after), jsonCell(colCounts, total)}
	if after == nil {
		cells = cells[1:]
	}
	if err := l.update(ctx, l.s.now().Add(l.s.lease), cells); err != nil {
		return err
	}
	l.st.After, l.st.Counts = after, total
	return nil
}

// Renew extends the lease without moving the position.
func (l *Lease) Renew(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.update(ctx, l.s.now().Add(l.s.lease), nil)
}

// Done marks the unit done; its lease keeps the owner's name, expired.
func (l *Lease) Done(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.update(ctx, time.UnixMilli(0), []hbapi.PutCell{cell(colState, []byte(StateDone))}); err != nil {
		return err
	}
	l.st.State = StateDone
	return nil
}

// Release gives the unit back, pending, for any worker to resume.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.update(ctx, time.UnixMilli(0), []hbapi.PutCell{cell(colState, []byte(StatePending))})
}

// split shrinks the unit to keep and records children as split off it,
// then creates their rows (pending, in the unit's shard).
func (l *Lease) split(ctx context.Context, keep Unit, children []Unit) error {
	l.mu.Lock()
	all := append(append([]Unit(nil), l.st.Children...), children...)
	err := l.update(ctx, l.s.now().Add(l.s.lease), []hbapi.PutCell{jsonCell(colUnit, keep), jsonCell(colChildren, all)})
	if err == nil {
		l.st.Unit, l.st.Children = keep, all
	}
	l.mu.Unlock()
	if err != nil {
		return err
	}
	return l.ensureChildren(ctx)
}

// ensureChildren creates the rows of the units split off this one that
// have none (a worker may have died between recording and creating them).
func (l *Lease) ensureChildren(ctx context.Context) error {
	st := l.Status()
	if len(st.Children) == 0 {
		return nil
	}
	shards := make([]int, len(st.Children))
	for i := range shards {
		shards[i] = st.Shard
	}
	return l.s.ensureUnits(ctx, l.job, st.Children, shards)
}
