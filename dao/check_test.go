package dao_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
)

// TestCheckFromDaoAlone: a store's user verifies and repairs its indexes
// with package dao's names only (modes, options, report, checkpoint).
func TestCheckFromDaoAlone(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	tbl, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl)
	r, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := r.Put(ctx, &Parcel{ID: fmt.Sprintf("p%02d", i), Color: "red", Qty: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	mode, err := dao.ParseMode("verify")
	if err != nil || mode != dao.ModeVerify {
		t.Fatalf("ParseMode(verify) = %v, %v", mode, err)
	}
	var last dao.Checkpoint
	progressed := 0
	var rep dao.Report
	rep, err = r.Check(ctx, mode, dao.WithProgress(func(dao.Progress) { progressed++ }),
		dao.WithCheckpoint(func(cp dao.Checkpoint) error { last = cp; return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if rep.DataRows != 20 || rep.Missing != 0 || rep.Orphaned != 0 || rep.Stale != 0 {
		t.Errorf("report %+v, want 20 data rows and nothing wrong", rep)
	}
	if progressed == 0 || !last.Done {
		t.Errorf("progress called %d times, last checkpoint %+v: want calls and a done checkpoint", progressed, last)
	}
	if _, err := r.Check(ctx, dao.ModeRepair, dao.WithResume(last)); err != nil {
		t.Errorf("Check(ModeRepair, WithResume(done)) = %v", err)
	}
}

// TestOneSentinelPerMeaning: an invalid option is one error value,
// whichever layer refused it (dao.New's nil client, the engine's Check
// mode), under either package's name.
func TestOneSentinelPerMeaning(t *testing.T) {
	f := newFake(t)
	tbl, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl)
	r, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	_, checkErr := r.Check(context.Background(), 0)
	_, newErr := dao.New[Parcel](nil, tbl)
	for what, err := range map[string]error{"Check(mode 0)": checkErr, "New(nil client)": newErr} {
		if !errors.Is(err, dao.ErrInvalidOption) || !errors.Is(err, index.ErrInvalidOption) {
			t.Errorf("%s = %v, want both dao.ErrInvalidOption and index.ErrInvalidOption", what, err)
		}
	}
}
