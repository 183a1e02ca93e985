package seeds

import (
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// LogTypesName is the name of seed 004's UID table.
const LogTypesName = "log_types"

// LogTypes returns seed 004's LOG_TYPES: the UID table of LogDataUID's
// hosts and event types.
func LogTypes() (*schema.Table[schema.UIDRow], error) { return schema.UIDTable(LogTypesName) }

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
func LogDataUIDs() []schema.UID[UIDLogEvent] {
	return []schema.UID[UIDLogEvent]{
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
func LogDataUID() (*schema.Table[UIDLogEvent], error) {
	uids := LogDataUIDs()
	key, err := keys.NewLayout(
		uids[0].Field(),
		uids[1].Field(),
		keys.Int64("ts", func(e *UIDLogEvent) int64 { return e.At.UnixMilli() },
			func(e *UIDLogEvent, ms int64) { setLogTime(&e.LogEvent, ms) }),
	)
	if err != nil {
		return nil, layoutError(LogDataUIDName, err)
	}
	return schema.New(schema.Spec[UIDLogEvent]{
		Name:     LogDataUIDName,
		Families: logFamilies(),
		Key:      key,
		UIDs:     uids,
		Columns: []schema.Column[UIDLogEvent]{
			schema.StringColumn("message", "l", "m",
				func(e *UIDLogEvent) string { return e.Message }, func(e *UIDLogEvent, v string) { e.Message = v }),
		},
	})
}
