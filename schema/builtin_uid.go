package schema

import "github.com/hbkit/hbkit/keys"

// UIDRow is one row of a UID table (seed 004's LOG_TYPES): a kind's
// counter, a name's id (forward) or an id's name (reverse). Package dao
// (dao.UIDs) reads and writes these rows; UIDTable declares them so that
// admin can create the table and tools can decode it.
type UIDRow struct {
	Type    string // UIDCounterRow, UIDReverseRow or UIDForwardRow
	Kind    string // the kind of name, such as "host"
	Key     string // the name (forward), the id's bytes (reverse), empty (counter)
	ID      []byte // forward rows: the id, big-endian in the kind's width
	Name    string // reverse rows: the name
	Counter int64  // counter rows: the last id handed out
}

// The row types of a UID table, the first byte of every row key. They
// sort counters first, then reverse rows, then forward rows.
const (
	UIDCounterRow = "c"
	UIDReverseRow = "i"
	UIDForwardRow = "n"
)

// The family and qualifiers of a UID table's cells.
const (
	UIDFamily           = "u"
	UIDIDQualifier      = "i" // forward rows: the id
	UIDNameQualifier    = "n" // reverse rows: the name
	UIDCounterQualifier = "c" // counter rows: an 8-byte HBase counter
)

// LogTypesName is the name of seed 004's UID table.
const LogTypesName = "log_types"

// UIDTable returns a UID table called name, keyed [type][kind][name or id]:
// the type is one byte (UIDCounterRow, UIDReverseRow, UIDForwardRow), the
// kind an escaped, self-delimiting string (keys.String), then the name or
// the id's bytes to the end of the key (keys.TrailingString). One family
// "u" of one version, with a row Bloom filter: every read is a Get of one
// row. A UID table stays small (a kind holds at most 2^(8·width) names),
// so it starts with one region.
func UIDTable(name string) (*Table[UIDRow], error) {
	key, err := keys.NewLayout(
		keys.Fixed("type", 1, 0, func(r *UIDRow) string { return r.Type }, func(r *UIDRow, v string) { r.Type = v }),
		keys.String("kind", func(r *UIDRow) string { return r.Kind }, func(r *UIDRow, v string) { r.Kind = v }),
		keys.TrailingString("key", func(r *UIDRow) string { return r.Key }, func(r *UIDRow, v string) { r.Key = v }),
	)
	if err != nil {
		return nil, keyError(name, err)
	}
	return New(Spec[UIDRow]{
		Name:     name,
		Families: []Family{{Name: UIDFamily, BloomFilter: BloomRow, Versions: 1}},
		Key:      key,
		Columns: []Column[UIDRow]{
			BytesColumn("id", UIDFamily, UIDIDQualifier, func(r *UIDRow) []byte { return r.ID }, func(r *UIDRow, v []byte) { r.ID = v }),
			StringColumn("name", UIDFamily, UIDNameQualifier, func(r *UIDRow) string { return r.Name }, func(r *UIDRow, v string) { r.Name = v }),
			Int64Column("counter", UIDFamily, UIDCounterQualifier, func(r *UIDRow) int64 { return r.Counter }, func(r *UIDRow, v int64) { r.Counter = v }),
		},
	})
}

// LogTypes returns seed 004's LOG_TYPES: the UID table of LogDataUID's
// hosts and event types.
func LogTypes() (*Table[UIDRow], error) { return UIDTable(LogTypesName) }

// UIDLogEvent is a LogEvent keyed by the ids of its host and event type
// (LogDataUID). A store with the UID table fills the ids on writes and the
// names on reads.
type UIDLogEvent struct {
	LogEvent
	HostID  uint64 // the id of Host, kind LogHostKind
	EventID uint64 // the id of Event, kind LogEventKind
}

// The kinds of LogDataUID's names in LOG_TYPES and the widths of their
// ids: 3 bytes (16,777,215 hosts) and 2 bytes (65,535 event types).
// Changing a width is a data migration of LOG_DATA and LOG_TYPES.
const (
	LogHostKind   = "host"
	LogEventKind  = "event"
	LogHostWidth  = 3
	LogEventWidth = 2
)

// LogDataUIDName is the name of LogDataUID's table.
const LogDataUIDName = "log_data_uid"

// LogDataUIDs returns the UID declarations of LogDataUID: its host_id and
// event_id key segments.
func LogDataUIDs() []UID[UIDLogEvent] {
	return []UID[UIDLogEvent]{
		{
			Segment: "host_id", Kind: LogHostKind, Width: LogHostWidth,
			Name: func(e *UIDLogEvent) string { return e.Host }, SetName: func(e *UIDLogEvent, v string) { e.Host = v },
			ID: func(e *UIDLogEvent) uint64 { return e.HostID }, SetID: func(e *UIDLogEvent, v uint64) { e.HostID = v },
		},
		{
			Segment: "event_id", Kind: LogEventKind, Width: LogEventWidth,
			Name: func(e *UIDLogEvent) string { return e.Event }, SetName: func(e *UIDLogEvent, v string) { e.Event = v },
			ID: func(e *UIDLogEvent) uint64 { return e.EventID }, SetID: func(e *UIDLogEvent, v uint64) { e.EventID = v },
		},
	}
}

// LogDataUID returns seed 004's numeric substitution: LOG_DATA keyed
// [host id][event type id][timestamp], 3 + 2 + 8 = 13 bytes whatever the
// names, with the ids from LOG_TYPES (LogTypes). Unlike LogDataMD5 the
// names are not stored in the row: a store with the UID table
// (dao.WithUIDs) reads them back from their ids. A host's events of one
// type are one contiguous, time-ordered range. Ids are handed out in the
// order names are first seen, so the table starts with one region; split
// it from sampled keys once data exists.
//
// It is not in BuiltinNames: its keys cannot be computed from a record
// without the UID table, which the simulator and the CLI do not have.
func LogDataUID() (*Table[UIDLogEvent], error) {
	uids := LogDataUIDs()
	key, err := keys.NewLayout(
		uids[0].Field(),
		uids[1].Field(),
		keys.Int64("ts", func(e *UIDLogEvent) int64 { return e.At.UnixMilli() },
			func(e *UIDLogEvent, ms int64) { setLogTime(&e.LogEvent, ms) }),
	)
	if err != nil {
		return nil, keyError(LogDataUIDName, err)
	}
	return New(Spec[UIDLogEvent]{
		Name:     LogDataUIDName,
		Families: logFamilies(),
		Key:      key,
		UIDs:     uids,
		Columns: []Column[UIDLogEvent]{
			StringColumn("message", "l", "m",
				func(e *UIDLogEvent) string { return e.Message }, func(e *UIDLogEvent, v string) { e.Message = v }),
		},
	})
}
