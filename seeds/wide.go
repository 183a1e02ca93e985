package seeds

import (
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// LogDataWideName is the name of LogDataWide's table.
const LogDataWideName = "log_data_wide"

// LogWideSpan is the time range of one row of LogDataWide: five minutes,
// the example of seed 004. Changing it is a data migration.
const LogWideSpan = 5 * time.Minute

// LogDataWideRegions is the number of regions LogDataWide is pre-split
// into, one per value of its leading host bucket.
const LogDataWideRegions = 16

// LogDataWide returns seed 004's "Log Data / Timeseries on Steroids"
// (OpenTSDB's approach): one row per [host][event type][five minutes], one
// column per event at its offset in the range.
//
//	row key   [host bucket][host id][event id][range base]   1 + 3 + 2 + 8 = 14 bytes
//	qualifier [offset]                                       3 bytes, milliseconds
//	value     the message, family l
//
// The host bucket is the FNV-1a hash of the host name modulo 16, one byte,
// so that hosts spread over the 16 regions the table is pre-split into and
// a reader who knows the host recomputes it. Host and event are the ids of
// LOG_TYPES (LogTypes, the UIDs of LogDataUID: same kinds and widths), so
// a store needs the UID table (dao.WithUIDs) and records read back with
// their names. One host's events of one type are one contiguous run of
// rows in time order, and the columns of a row are in time order: a
// time-range read of a series is one scan whose cells come in time order.
func LogDataWide() (*schema.WideTable[UIDLogEvent], error) {
	uids := LogDataUIDs()
	at := func(e *UIDLogEvent) int64 { return e.At.UnixMilli() }
	setAt := func(e *UIDLogEvent, ms int64) { setLogTime(&e.LogEvent, ms) }
	key, err := keys.NewLayout(
		keys.HashBucketByte("host_bucket", LogDataWideRegions, func(e *UIDLogEvent) string { return e.Host }, nil),
		uids[0].Field(),
		uids[1].Field(),
		keys.TimeBase("ts", LogWideSpan, at, setAt),
	)
	if err != nil {
		return nil, layoutError(LogDataWideName, err)
	}
	qual, err := keys.NewLayout(keys.TimeOffset("ts", LogWideSpan, at, setAt))
	if err != nil {
		return nil, layoutError(LogDataWideName, err)
	}
	return schema.NewWide(schema.WideSpec[UIDLogEvent]{
		Name:      LogDataWideName,
		Families:  logFamilies(),
		Key:       key,
		Qualifier: qual,
		Value: schema.StringColumn("message", "l", "",
			func(e *UIDLogEvent) string { return e.Message }, func(e *UIDLogEvent, v string) { e.Message = v }),
		Splits: schema.Splits{Regions: LogDataWideRegions},
		UIDs:   uids,
		From:   map[string]string{"host_bucket": "host"},
	})
}

// wideDefs adapts a wide table's typed constructor for builtins.
func wideDefs[T any](build func() (*schema.WideTable[T], error)) func() ([]schema.Definition, error) {
	return func() ([]schema.Definition, error) {
		t, err := build()
		if err != nil {
			return nil, err
		}
		return []schema.Definition{t}, nil
	}
}
