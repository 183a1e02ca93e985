package conformance

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Harness gives the suite the clients under test.
type Harness struct {
	Data  hbapi.DataClient
	Admin hbapi.AdminClient
	// NewTableName returns a table qualifier (no namespace) that no
	// existing table uses, built from base, e.g. base + a random suffix.
	// Required.
	NewTableName func(base string) string
	// Timeout bounds each test (default 2 minutes).
	Timeout time.Duration
	// KeepTables leaves the suite's tables in place for inspection.
	KeepTables bool
	// Unsupported names what the implementation does not offer, each
	// with the reason; the tests that need it are skipped with that
	// reason. Nil for a complete implementation.
	Unsupported map[Capability]string
}

// Capability is a part of the interfaces that an implementation may leave
// out (an adapter over another client library), documenting the gap. The
// suite needs CreateTable, DisableTable and DeleteTable in every case.
type Capability string

const (
	// ScanBatch is Scan.Batch: wide rows cut into Results of at most
	// Batch cells.
	ScanBatch Capability = "Scan.Batch"
	// FullAdmin is the rest of hbase.AdminClient, which the Admin test
	// runs on a table of a namespace of its own: namespaces, TableExists,
	// IsTableEnabled, ListTables, DescribeTable, ModifyTable,
	// EnableTable, TruncateTable, TableRegions and SplitRegion.
	FullAdmin Capability = "the full AdminClient"
	// CellSizeLimit is HBase's maximum cell size checked before sending:
	// a larger cell refused with an *hbase.InvalidRequestError wrapping
	// hbase.ErrCellTooLarge that names the column.
	CellSizeLimit Capability = "the cell size limit"
)

// need skips t if the implementation lacks c.
func (s *suite) need(t *testing.T, c Capability) {
	t.Helper()
	if why, ok := s.h.Unsupported[c]; ok {
		t.Skipf("unsupported: %s: %s", c, why)
	}
}

// Run runs the suite as subtests of t.
func Run(t *testing.T, h Harness) {
	if h.Data == nil || h.Admin == nil || h.NewTableName == nil {
		t.Fatal("conformance: Harness needs Data, Admin and NewTableName")
	}
	if h.Timeout == 0 {
		h.Timeout = 2 * time.Minute
	}
	s := &suite{h: h}
	s.data = s.createTable(t, "conf_data", []hbapi.FamilyDescriptor{
		{Name: "cf", Attributes: map[string]string{"VERSIONS": "3"}},
		{Name: "cf2"},
	}, nil)
	t.Run("PutGet", s.testPutGet)
	t.Run("Versions", s.testVersions)
	t.Run("TimeRange", s.testTimeRange)
	t.Run("Deletes", s.testDeletes)
	t.Run("CheckAndMutate", s.testCheckAndMutate)
	t.Run("MutateRow", s.testMutateRow)
	t.Run("Increment", s.testIncrement)
	t.Run("Append", s.testAppend)
	t.Run("Batch", s.testBatch)
	t.Run("BatchCheckAndMutate", s.testBatchCheckAndMutate)
	t.Run("Validation", s.testValidation)
	t.Run("Errors", s.testErrors)
	t.Run("WriteLimits", s.testWriteLimits)

	s.scan = s.createTable(t, "conf_scan", []hbapi.FamilyDescriptor{{Name: "cf"}, {Name: "meta"}},
		[][]byte{[]byte("k15"), []byte("k05"), []byte("k10")})
	s.loadScanTable(t)
	t.Run("Scan", s.testScan)
	t.Run("ScanFilters", s.testScanFilters)
	t.Run("ScanWideRows", s.testScanWideRows)

	t.Run("Admin", s.testAdmin)
}

type suite struct {
	h    Harness
	data string // families cf (VERSIONS 3) and cf2 (VERSIONS 1)
	scan string // families cf, meta; split at k05, k10, k15; rows k00..k19
}

func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), s.h.Timeout)
	t.Cleanup(cancel)
	return ctx
}

func (s *suite) createTable(t *testing.T, base string, fams []hbapi.FamilyDescriptor, splits [][]byte) string {
	t.Helper()
	name := s.h.NewTableName(base)
	ctx := s.ctx(t)
	if err := s.h.Admin.CreateTable(ctx, hbapi.TableDescriptor{Name: name, Families: fams}, splits); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	if !s.h.KeepTables {
		t.Cleanup(func() { s.dropTable(name) })
	}
	return name
}

func (s *suite) dropTable(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.h.Timeout)
	defer cancel()
	_ = s.h.Admin.DisableTable(ctx, name)
	_ = s.h.Admin.DeleteTable(ctx, name)
}

// Ten-ish helpers shared by the tests.

func b(s string) []byte { return []byte(s) }

func vals(kv ...string) map[string]map[string][]byte {
	m := map[string]map[string][]byte{}
	for i := 0; i+2 < len(kv); i += 3 {
		if m[kv[i]] == nil {
			m[kv[i]] = map[string][]byte{}
		}
		m[kv[i]][kv[i+1]] = []byte(kv[i+2])
	}
	return m
}

func (s *suite) put(t *testing.T, ctx context.Context, table, row string, ts int64, kv ...string) {
	t.Helper()
	if err := s.h.Data.Put(ctx, &hbapi.Put{Table: table, Row: b(row), Values: vals(kv...), Timestamp: ts}); err != nil {
		t.Fatalf("Put(%s, %q): %v", table, row, err)
	}
}

func (s *suite) get(t *testing.T, ctx context.Context, g *hbapi.Get) *hbapi.Result {
	t.Helper()
	r, err := s.h.Data.Get(ctx, g)
	if err != nil {
		t.Fatalf("Get(%q): %v", g.Row, err)
	}
	if r == nil {
		t.Fatalf("Get(%q) returned a nil Result", g.Row)
	}
	return r
}

// show renders cells as "family:qualifier@ts=value" ("@ts" only when
// withTS), the readable form used in comparisons.
func show(r *hbapi.Result, withTS bool) string {
	if r == nil {
		return "<nil>"
	}
	parts := make([]string, 0, len(r.Cells))
	for _, c := range r.Cells {
		p := string(c.Family) + ":" + string(c.Qualifier)
		if withTS {
			p += fmt.Sprintf("@%d", c.Timestamp)
		}
		parts = append(parts, p+"="+string(c.Value))
	}
	return strings.Join(parts, " ")
}

func wantCells(t *testing.T, what string, r *hbapi.Result, withTS bool, want string) {
	t.Helper()
	if got := show(r, withTS); got != want {
		t.Errorf("%s: got  %q\n\twant %q", what, got, want)
	}
}

func wantErr(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: error = %v, want errors.Is(%v)", what, err, sentinel)
	}
}

// NameGenerator returns a Harness.NewTableName that makes names unlikely
// to collide across runs and processes: prefix, base, a time-derived run
// id and a counter ("hbkit_conf_data_lx2k9a_1").
func NameGenerator(prefix string) func(base string) string {
	run := strconv.FormatInt(time.Now().UnixNano()/int64(time.Millisecond), 36)
	var mu sync.Mutex
	n := 0
	return func(base string) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s_%s_%s_%d", prefix, base, run, n)
	}
}
