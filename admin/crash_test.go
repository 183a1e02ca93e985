package admin_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
)

var errInjected = errors.New("injected failure")

// faulty wraps a client and fails chosen calls, before or after they take
// effect, the way a lost connection or a master failover does.
type faulty struct {
	admin.Client
	// before fails the call without running it; after runs it and then
	// reports a failure (the answer was lost). Keyed by method name and
	// table; the value is how many calls to fail.
	before, after map[string]int
	// hide makes TableExists answer false.
	hide map[string]int
	// notEnabledPolls makes IsTableEnabled answer false this many times
	// after EnableTable answered "not disabled": a table another
	// procedure is still enabling.
	notEnabledPolls atomic.Int32
	enabling        bool
}

func (f *faulty) fail(m map[string]int, op, table string) bool {
	k := op + " " + table
	if m[k] > 0 {
		m[k]--
		return true
	}
	return false
}

func (f *faulty) CreateTable(ctx context.Context, d hbase.TableDescriptor, s [][]byte) error {
	if f.fail(f.before, "CreateTable", d.Name) {
		return errInjected
	}
	err := f.Client.CreateTable(ctx, d, s)
	if err == nil && f.fail(f.after, "CreateTable", d.Name) {
		return errInjected
	}
	return err
}

func (f *faulty) TableExists(ctx context.Context, t string) (bool, error) {
	if f.fail(f.hide, "TableExists", t) {
		return false, nil
	}
	return f.Client.TableExists(ctx, t)
}

func (f *faulty) CreateNamespace(ctx context.Context, ns string) error {
	err := f.Client.CreateNamespace(ctx, ns)
	if err == nil && f.fail(f.after, "CreateNamespace", ns) {
		return errInjected
	}
	return err
}

func (f *faulty) DeleteTable(ctx context.Context, t string) error {
	if f.fail(f.before, "DeleteTable", t) {
		return errInjected
	}
	return f.Client.DeleteTable(ctx, t)
}

func (f *faulty) TruncateTable(ctx context.Context, t string, keep bool) error {
	if f.fail(f.before, "TruncateTable", t) {
		return errInjected
	}
	return f.Client.TruncateTable(ctx, t, keep)
}

func (f *faulty) EnableTable(ctx context.Context, t string) error {
	if f.enabling {
		return hbase.ErrTableNotDisabled
	}
	return f.Client.EnableTable(ctx, t)
}

func (f *faulty) IsTableEnabled(ctx context.Context, t string) (bool, error) {
	if f.enabling && f.notEnabledPolls.Add(-1) < 0 {
		// The other procedure finishes.
		f.enabling = false
		if err := f.Client.EnableTable(ctx, t); err != nil {
			return false, err
		}
	}
	return f.Client.IsTableEnabled(ctx, t)
}

func TestCrashSafety(t *testing.T) {
	ctx := context.Background()
	sms := builtin(t, "sms")
	smsIndex := builtin(t, "sms_index")
	tests := []struct {
		name string
		// setup breaks things; it may leave state behind in the fake.
		setup func(t *testing.T, a *admin.Admin, f *faulty)
		defs  []schema.Definition
		// first is the error of the first EnsureTables; nil for success.
		first error
		// want are the outcomes of the first run (zero for a failed table),
		// then of the second.
		want1, want2 []admin.Outcome
	}{
		{
			name: "create fails before anything happens",
			setup: func(t *testing.T, a *admin.Admin, f *faulty) {
				f.before["CreateTable sms"] = 1
			},
			defs: []schema.Definition{sms}, first: errInjected,
			want1: []admin.Outcome{0}, want2: []admin.Outcome{admin.Created},
		},
		{
			name: "create succeeds but the answer is lost",
			setup: func(t *testing.T, a *admin.Admin, f *faulty) {
				f.after["CreateTable sms"] = 1
			},
			defs:  []schema.Definition{sms},
			want1: []admin.Outcome{admin.Created}, want2: []admin.Outcome{admin.Unchanged},
		},
		{
			name: "index table fails after the data table was created",
			setup: func(t *testing.T, a *admin.Admin, f *faulty) {
				f.before["CreateTable sms_index"] = 1
			},
			defs: []schema.Definition{sms, smsIndex}, first: errInjected,
			want1: []admin.Outcome{admin.Created, 0}, want2: []admin.Outcome{admin.Unchanged, admin.Created},
		},
		{
			name: "drop interrupted between disable and delete",
			setup: func(t *testing.T, a *admin.Admin, f *faulty) {
				if _, err := a.EnsureTable(ctx, sms); err != nil {
					t.Fatal(err)
				}
				f.before["DeleteTable sms"] = 1
				if err := a.Drop(ctx, "sms"); !errors.Is(err, errInjected) {
					t.Fatalf("Drop = %v", err)
				}
			},
			defs:  []schema.Definition{sms},
			want1: []admin.Outcome{admin.Enabled}, want2: []admin.Outcome{admin.Unchanged},
		},
		{
			name: "truncate interrupted after disable",
			setup: func(t *testing.T, a *admin.Admin, f *faulty) {
				if _, err := a.EnsureTable(ctx, sms); err != nil {
					t.Fatal(err)
				}
				f.before["TruncateTable sms"] = 1
				if err := a.Truncate(ctx, "sms"); !errors.Is(err, errInjected) {
					t.Fatalf("Truncate = %v", err)
				}
			},
			defs:  []schema.Definition{sms},
			want1: []admin.Outcome{admin.Enabled}, want2: []admin.Outcome{admin.Unchanged},
		},
		{
			name: "another run created the table meanwhile",
			setup: func(t *testing.T, a *admin.Admin, f *faulty) {
				// The other run creates the table between our
				// TableExists and our CreateTable.
				if err := f.Client.CreateTable(ctx, mustPlan(t, sms).Descriptor, mustPlan(t, sms).SplitKeys); err != nil {
					t.Fatal(err)
				}
				f.hide["TableExists sms"] = 1
			},
			defs:  []schema.Definition{sms},
			want1: []admin.Outcome{admin.Unchanged}, want2: []admin.Outcome{admin.Unchanged},
		},
		{
			name: "another procedure is still enabling the table",
			setup: func(t *testing.T, a *admin.Admin, f *faulty) {
				if _, err := a.EnsureTable(ctx, sms); err != nil {
					t.Fatal(err)
				}
				if err := f.Client.DisableTable(ctx, "sms"); err != nil {
					t.Fatal(err)
				}
				f.enabling = true
				f.notEnabledPolls.Store(3)
			},
			defs:  []schema.Definition{sms},
			want1: []admin.Outcome{admin.Enabled}, want2: []admin.Outcome{admin.Unchanged},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &faulty{Client: newFake(t), before: map[string]int{}, after: map[string]int{}, hide: map[string]int{}}
			a := newAdmin(t, f, admin.WithEnableWait(5*time.Second))
			tt.setup(t, a, f)
			res, err := a.EnsureTables(ctx, tt.defs...)
			if tt.first == nil && err != nil || tt.first != nil && !errors.Is(err, tt.first) {
				t.Fatalf("first run: %v, want %v", err, tt.first)
			}
			if got := outcomes(res); !slices.Equal(got, tt.want1) {
				t.Errorf("first run outcomes %v, want %v", got, tt.want1)
			}
			res, err = a.EnsureTables(ctx, tt.defs...)
			if err != nil {
				t.Fatalf("second run: %v", err)
			}
			if got := outcomes(res); !slices.Equal(got, tt.want2) {
				t.Errorf("second run outcomes %v, want %v", got, tt.want2)
			}
			for _, d := range tt.defs {
				diffs, enabled, err := a.Check(ctx, d)
				if err != nil || diffs != nil || !enabled {
					t.Errorf("%s after two runs: diffs %v, enabled %v, err %v", d.Name(), diffs, enabled, err)
				}
			}
		})
	}
}

func TestEnableWaitExhausted(t *testing.T) {
	ctx := context.Background()
	f := &faulty{Client: newFake(t), before: map[string]int{}, after: map[string]int{}, hide: map[string]int{}}
	a := newAdmin(t, f, admin.WithEnableWait(0))
	sms := builtin(t, "sms")
	if _, err := a.EnsureTable(ctx, sms); err != nil {
		t.Fatal(err)
	}
	if err := f.Client.DisableTable(ctx, "sms"); err != nil {
		t.Fatal(err)
	}
	f.enabling = true
	f.notEnabledPolls.Store(1000)
	if _, err := a.EnsureTable(ctx, sms); !errors.Is(err, admin.ErrNotEnabled) {
		t.Errorf("EnsureTable = %v, want ErrNotEnabled", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	b := newAdmin(t, f, admin.WithEnableWait(time.Hour))
	if _, err := b.EnsureTable(cctx, sms); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("EnsureTable with an ending context = %v, want DeadlineExceeded", err)
	}
}

func TestNamespaceCreatedByAnotherRun(t *testing.T) {
	ctx := context.Background()
	f := &faulty{Client: newFake(t), before: map[string]int{}, after: map[string]int{}, hide: map[string]int{}}
	a := newAdmin(t, f)
	def := table(t, "app:t", []schema.Family{{Name: "cf"}})
	// The namespace is created but the answer is lost: the table is not.
	f.after["CreateNamespace app"] = 1
	if _, err := a.EnsureTable(ctx, def); !errors.Is(err, errInjected) {
		t.Fatalf("first run = %v, want the injected failure", err)
	}
	if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Created {
		t.Errorf("second run = %v, %v; want created", out, err)
	}
}

func mustPlan(t *testing.T, d schema.Definition) *admin.Plan {
	t.Helper()
	p, err := admin.PlanTable(d)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func outcomes(rs []admin.TableResult) []admin.Outcome {
	out := make([]admin.Outcome, len(rs))
	for i, r := range rs {
		out[i] = r.Outcome
	}
	return out
}
