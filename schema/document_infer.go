package schema

import (
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/keys"
)

// exporter collects what Document needs beyond the declaration: the
// fields the layouts refer to and the types their uses allow.
type exporter struct {
	table    string
	order    []string              // fields, first use first
	declared map[string]bool       // the table's own fields
	uses     map[string][][]string // per field: the types each use allows, preferred first
}

func newExporter(table string) *exporter {
	return &exporter{table: table, declared: map[string]bool{}, uses: map[string][][]string{}}
}

func (e *exporter) declare(fields []string) {
	for _, f := range fields {
		e.declared[f] = true
		e.note(f, nil)
	}
}

// note records a use of field allowing types (nil: any).
func (e *exporter) note(field string, types []string) {
	if _, ok := e.uses[field]; !ok {
		e.order = append(e.order, field)
		e.uses[field] = nil
	}
	if types != nil {
		e.uses[field] = append(e.uses[field], types)
	}
}

// useTypes are the field types a segment kind's value can be read from,
// preferred first (see document_access.go).
var useTypes = map[valueType][]string{
	valString:   {"string"},
	valUint:     {"uint64", "int64"},
	valInt:      {"int64", "uint64"},
	valMillis:   {"int64", "time"},
	valTime:     {"time", "int64"},
	valDuration: {"duration", "time", "int64"},
}

var columnUseTypes = map[ColumnType][]string{
	ColumnBytes: {"bytes"}, ColumnString: {"string"}, ColumnInt64: {"int64", "uint64"},
	ColumnFloat64: {"float64"}, ColumnBool: {"bool"}, ColumnTime: {"time", "int64"},
}

// segments converts a layout, grouping the parts of a joined group, and
// notes the fields it uses.
func (e *exporter) segments(path string, segs []keys.Segment, from map[string]string, isField func(string) bool) ([]DocSegment, error) {
	var out []DocSegment
	var group *DocSegment
	for i, s := range segs {
		src := s.Name
		if f, ok := from[s.Name]; ok {
			src = f
		}
		d := docSegmentOf(s, src)
		k, _ := lookupKind(d.Kind)
		if k.hash && d.From == "" && !isField(s.Name) && k.value != valNone {
			return nil, &Error{Table: e.table, Field: path + "[" + strconv.Itoa(i) + "]",
				Reason: "segment " + strconv.Quote(s.Name) + " is computed from a field the declaration does not name: map it in From", Kind: ErrUnknownField}
		}
		e.noteSegment(d, k, src)
		if k.kind != keys.KindText && k.kind != keys.KindDecimalText {
			out = append(out, d)
			continue
		}
		if group == nil {
			out = append(out, DocSegment{Kind: "joined", Delimiter: s.Delimiter})
			group = &out[len(out)-1]
		}
		group.Parts = append(group.Parts, d)
		if s.Delimiter == "" {
			group = nil
		}
	}
	zoneTimesOfDay(out)
	return out, nil
}

func (e *exporter) noteSegment(d DocSegment, k docKind, src string) {
	switch {
	case k.value == valCustom && d.Codec == "uid":
		e.note(src, useTypes[valUint])
	case k.value == valCustom:
		e.note(src, nil)
	case d.Modulo != 0:
		e.note(src, []string{"int64", "uint64", "time"})
	case k.value != valNone:
		e.note(src, useTypes[k.value])
	}
	if k.hash && d.decodes(k) {
		e.note(d.Name, useTypes[valInt])
	}
}

// zoneTimesOfDay gives a time of day the zone of the date computed from
// the same field in the same layout, the calendar keys.TimeOfDayIn reads.
func zoneTimesOfDay(segs []DocSegment) {
	for i, s := range segs {
		if s.Kind != "reversed_time_of_day" || s.From == "" {
			continue
		}
		for _, d := range segs {
			if d.Kind == "date" && d.From == s.From {
				segs[i].Zone = d.Zone
			}
		}
	}
}

// docColumns converts columns and notes their fields.
func docColumns[T any](e *exporter, cs []Column[T]) []DocColumn {
	var out []DocColumn
	for _, c := range cs {
		e.note(c.Name, columnUseTypes[c.Type])
		dc := DocColumn{Name: c.Name, Family: c.Family, Qualifier: c.Qualifier}
		if c.Type != ColumnBytes {
			dc.Type = c.Type.String()
		}
		out = append(out, dc)
	}
	return out
}

func (e *exporter) uids(us []DocUID) []DocUID {
	for _, u := range us {
		e.note(u.Field, []string{"string"})
	}
	if len(us) == 0 {
		return nil
	}
	return us
}

// fieldList resolves the type of each field from its uses: the types
// every use allows, then time if a use prefers it, else the first use's
// preference.
func (e *exporter) fieldList() ([]DocField, error) {
	out := make([]DocField, 0, len(e.order))
	for _, f := range e.order {
		typ, ok := resolveType(e.uses[f])
		if !ok {
			return nil, &Error{Table: e.table, Field: "fields", Value: f, Reason: "field " + strconv.Quote(f) + " is used as values of different types", Kind: ErrInvalidTable}
		}
		out = append(out, DocField{Name: f, Type: typ})
	}
	return out, nil
}

func resolveType(uses [][]string) (string, bool) {
	if len(uses) == 0 {
		return "", true
	}
	cands := slices.Clone(fieldTypes)
	for _, u := range uses {
		cands = slices.DeleteFunc(cands, func(t string) bool { return !slices.Contains(u, t) })
	}
	if len(cands) == 0 {
		return "", false
	}
	for _, u := range uses {
		if u[0] == "time" && slices.Contains(cands, "time") {
			return "time", true
		}
	}
	if slices.Contains(cands, uses[0][0]) {
		return uses[0][0], true
	}
	return cands[0], true
}
