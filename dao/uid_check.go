package dao

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// UIDEntry is one id of a UID table and the name its reverse row holds.
type UIDEntry struct {
	Kind string
	ID   uint64
	Name string
}

// UIDReport is what Check found in a UID table.
type UIDReport struct {
	// Names counts the assigned names (forward rows) per kind.
	Names map[string]int
	// Counters is each kind's counter: the last id handed out.
	Counters map[string]int64
	// Unused lists the reverse rows whose name maps to another id, or to
	// none: left by a writer that lost the race for the name, or that died
	// between its two writes. No key holds these ids; they are harmless.
	Unused []UIDEntry
	// Broken describes what the protocol never leaves: a forward row
	// without a matching reverse row, an id above its kind's counter, a
	// row of an undeclared kind or that does not decode. Each entry names
	// the kind and the problem, not the name.
	Broken []string
}

// OK reports whether Check found nothing broken (unused ids are fine).
func (r UIDReport) OK() bool { return len(r.Broken) == 0 }

// Check reads the whole UID table and reports its names, counters, unused
// ids and anything broken. It holds the table in memory: a UID table is
// small (a kind has at most 2^(8·width) names). It changes nothing.
func (u *UIDs) Check(ctx context.Context) (UIDReport, error) {
	rep := UIDReport{Names: make(map[string]int), Counters: make(map[string]int64)}
	forward := make(map[uidNameKey]uint64)
	reverse := make(map[uidIDKey]string)
	sc, err := u.c.Scan(ctx, &hbapi.Scan{Table: u.name})
	if err != nil {
		return UIDReport{}, fmt.Errorf("dao: uid %q: check: %w", u.name, err)
	}
	for res, err := range hbapi.All(ctx, sc) {
		if err != nil {
			return UIDReport{}, fmt.Errorf("dao: uid %q: check: %w", u.name, err)
		}
		var row schema.UIDRow
		var cells []schema.Cell
		for _, c := range res.Cells {
			cells = append(cells, schema.Cell{Family: string(c.Family), Qualifier: string(c.Qualifier), Value: c.Value})
		}
		if err := u.t.DecodeRow(res.Row(), cells, &row); err != nil {
			field, reason := describe(err)
			rep.Broken = append(rep.Broken, "a row does not decode: "+field+": "+reason)
			continue
		}
		w, ok := u.kinds[row.Kind]
		if !ok {
			rep.Broken = append(rep.Broken, "kind "+strconv.Quote(row.Kind)+": not declared")
			continue
		}
		switch row.Type {
		case schema.UIDCounterRow:
			rep.Counters[row.Kind] = row.Counter
		case schema.UIDForwardRow:
			id, rest, err := schema.DecodeUID(row.ID, w)
			if err != nil || len(rest) != 0 || id == 0 {
				rep.Broken = append(rep.Broken, "kind "+strconv.Quote(row.Kind)+": a forward row holds no id of width "+strconv.Itoa(w))
				continue
			}
			forward[uidNameKey{row.Kind, row.Key}] = id
			rep.Names[row.Kind]++
		case schema.UIDReverseRow:
			id, rest, err := schema.DecodeUID([]byte(row.Key), w)
			if err != nil || len(rest) != 0 || id == 0 {
				rep.Broken = append(rep.Broken, "kind "+strconv.Quote(row.Kind)+": a reverse row's key is no id of width "+strconv.Itoa(w))
				continue
			}
			reverse[uidIDKey{row.Kind, id}] = row.Name
		default:
			rep.Broken = append(rep.Broken, "kind "+strconv.Quote(row.Kind)+": unknown row type")
		}
	}
	for k, id := range forward {
		if name, ok := reverse[uidIDKey{k.kind, id}]; !ok || name != k.name {
			rep.Broken = append(rep.Broken, "kind "+strconv.Quote(k.kind)+": id "+strconv.FormatUint(id, 10)+" has no reverse row naming its name")
		}
		if id > uint64(max(rep.Counters[k.kind], 0)) {
			rep.Broken = append(rep.Broken, "kind "+strconv.Quote(k.kind)+": id "+strconv.FormatUint(id, 10)+" above the counter")
		}
	}
	for k, name := range reverse {
		if id, ok := forward[uidNameKey{k.kind, name}]; !ok || id != k.id {
			rep.Unused = append(rep.Unused, UIDEntry{Kind: k.kind, ID: k.id, Name: name})
		}
	}
	slices.SortFunc(rep.Unused, func(a, b UIDEntry) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	slices.Sort(rep.Broken)
	return rep, nil
}
