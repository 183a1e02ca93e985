//go:build integration

package dao_test

import (
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

// TestTimeZoneRoundTripHBase is TestTimeZoneRoundTrip against a real
// HBase: readings stamped in Asia/Shanghai, Pacific/Auckland and
// America/Los_Angeles at hours when the local date is not UTC's, as times
// built in the zone and as the process's local time, are found by Get,
// Find, Count and Check in every write mode.
func TestTimeZoneRoundTripHBase(t *testing.T) {
	c := itClient(t)
	for _, zc := range zoneCases(t) {
		for _, mode := range writeModes {
			t.Run(zc.name()+"/"+mode.String(), func(t *testing.T) {
				zc.inZone(t, func(at []time.Time) {
					tbl := readingsTable(t, mode)
					r, err := dao.New(c, tbl, itTables(t, c, tbl))
					if err != nil {
						t.Fatal(err)
					}
					checkZoneRoundTrip(t, r, at)
				})
			})
		}
	}
}

// TestIndexCountByValueHBase is TestIndexCountByValue against a real
// HBase.
func TestIndexCountByValueHBase(t *testing.T) {
	c := itClient(t)
	for _, mode := range writeModes {
		t.Run(mode.String(), func(t *testing.T) {
			tbl := readingsTable(t, mode)
			r, err := dao.New(c, tbl, itTables(t, c, tbl))
			if err != nil {
				t.Fatal(err)
			}
			checkCountByValue(t, r)
		})
	}
}

// TestCancelledReadsSaySoOnceHBase is TestCancelledReadsSaySoOnce against
// a real HBase, whose client wraps a cancelled scan in errors of its own.
func TestCancelledReadsSaySoOnceHBase(t *testing.T) {
	c := itClient(t)
	tbl := readingsTable(t, schema.Strict)
	r, err := dao.New(c, tbl, itTables(t, c, tbl))
	if err != nil {
		t.Fatal(err)
	}
	checkCancelledReads(t, r)
}

// TestDeclaredZoneRoundTripHBase is TestDeclaredZoneRoundTrip against a
// real HBase, for times of the process's zone (east and west of UTC) in
// every write mode.
func TestDeclaredZoneRoundTripHBase(t *testing.T) {
	c := itClient(t)
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	for _, zc := range zoneCases(t) {
		if !zc.local {
			continue
		}
		for _, mode := range writeModes {
			t.Run(zc.name()+"/"+mode.String(), func(t *testing.T) {
				zc.inZone(t, func(at []time.Time) {
					tbl := readingsTableIn(t, mode, shanghai)
					r, err := dao.New(c, tbl, itTables(t, c, tbl))
					if err != nil {
						t.Fatal(err)
					}
					checkZoneRoundTrip(t, r, at)
					checkShanghaiDays(t, r, at, shanghai)
				})
			})
		}
	}
}
