package schema

import (
	"strconv"

	"github.com/hbkit/hbkit/keys"
)

// Splits says how a table is pre-split into regions. Set at most one of
// Keys and Regions; the zero value creates the table with one region.
type Splits struct {
	// Keys are explicit split points in ascending byte order, e.g. the
	// seed's SPLITS => ['05','10',…,'95'].
	Keys [][]byte
	// Regions asks for that many regions, computed from the keyspace of
	// the row key's leading segment (keys.SegmentSplits): hash buckets,
	// hex hashes and reversed phone numbers have one, timestamps and
	// free-form strings do not and are an error here.
	Regions int
}

// compute validates explicit keys or derives them from segs.
func (s Splits) compute(segs []keys.Segment) ([][]byte, error) {
	bad := func(reason string, err error) ([][]byte, error) {
		return nil, &Error{Field: "splits", Reason: reason, Kind: ErrInvalidSplits, Err: err}
	}
	switch {
	case len(s.Keys) > 0 && s.Regions != 0:
		return bad("set either Keys or Regions, not both", nil)
	case s.Regions < 0:
		return bad("negative region count "+strconv.Itoa(s.Regions), nil)
	case s.Regions > 1:
		if len(segs) == 0 {
			return bad("no row-key layout to split", nil)
		}
		ks, err := keys.SegmentSplits(segs[0], s.Regions)
		if err != nil {
			return bad("cannot split the leading key segment into "+strconv.Itoa(s.Regions)+" regions", err)
		}
		return ks, nil
	}
	if err := keys.ValidateSplits(s.Keys); err != nil {
		return bad("split keys must be non-empty and strictly ascending", err)
	}
	return cloneKeys(s.Keys), nil
}
