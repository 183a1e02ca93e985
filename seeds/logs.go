package seeds

import (
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// LogEvent is one record of the HBase book's LOG_DATA example (seed 004):
// a host, a timestamp, an event type and a message.
type LogEvent struct {
	Host    string
	At      time.Time // millisecond precision; decoded in UTC
	Event   string
	Message string
}

// Names of the LOG_DATA tables.
const (
	LogDataBucketedName = "log_data_bucketed"
	LogDataByHostName   = "log_data_by_host"
	LogDataMD5Name      = "log_data_md5"
)

// LogBuckets is the number of time buckets of LogDataBucketed: bucket =
// timestamp % LogBuckets. Changing it is a data migration, and every
// time-range read costs LogBuckets scans.
const LogBuckets = 10

// LogDataMD5Regions is the number of regions LogDataMD5 is pre-split into.
const LogDataMD5Regions = 16

func logFamilies() []schema.Family {
	return []schema.Family{{Name: "l", BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy}}
}

func logMessageColumn() schema.Column[LogEvent] {
	return schema.StringColumn("message", "l", "m",
		func(e *LogEvent) string { return e.Message }, func(e *LogEvent, v string) { e.Message = v })
}

func logTime(e *LogEvent) int64         { return e.At.UnixMilli() }
func setLogTime(e *LogEvent, ms int64)  { e.At = time.UnixMilli(ms).UTC() }
func logHost(e *LogEvent) string        { return e.Host }
func setLogHost(e *LogEvent, v string)  { e.Host = v }
func logEvent(e *LogEvent) string       { return e.Event }
func setLogEvent(e *LogEvent, v string) { e.Event = v }

// LogDataBucketed returns LOG_DATA keyed [bucket][timestamp][hostname]
// [log-event], the book's answer to the hot spot of a leading timestamp:
// bucket = timestamp % 10 (one digit), then the timestamp as an ordered
// 8-byte integer (keys.Int64), then host and event as escaped,
// self-delimiting strings. Pre-split into 10 regions, one per bucket. A
// time-range read needs one scan per bucket.
func LogDataBucketed() (*schema.Table[LogEvent], error) {
	key, err := keys.NewLayout(
		keys.Decimal("bucket", 1, func(e *LogEvent) uint64 {
			ms := e.At.UnixMilli() % LogBuckets
			if ms < 0 {
				ms += LogBuckets
			}
			return uint64(ms)
		}, nil),
		keys.Int64("ts", logTime, setLogTime),
		keys.String("host", logHost, setLogHost),
		keys.String("event", logEvent, setLogEvent),
	)
	if err != nil {
		return nil, layoutError(LogDataBucketedName, err)
	}
	// The bucket is a plain decimal (timestamp % 10), not a hash, so its
	// keyspace is not marked uniform; split on the bucket values directly.
	splits, err := keys.BucketSplits(LogBuckets, LogBuckets, 1)
	if err != nil {
		return nil, &schema.Error{Table: LogDataBucketedName, Field: "splits", Reason: "cannot split the buckets", Kind: schema.ErrInvalidSplits, Err: err}
	}
	return schema.New(schema.Spec[LogEvent]{
		Name:     LogDataBucketedName,
		Families: logFamilies(),
		Key:      key,
		From:     map[string]string{"bucket": "ts"},
		Splits:   schema.Splits{Keys: splits},
		Columns:  []schema.Column[LogEvent]{logMessageColumn()},
	})
}

// LogDataByHost returns LOG_DATA keyed [hostname][timestamp][log-event]:
// good when there are many hosts and reads are per host. Host names have
// no keyspace to split on, so the table starts with one region; split it
// from sampled keys (keys.SampleSplits) once data exists.
func LogDataByHost() (*schema.Table[LogEvent], error) {
	key, err := keys.NewLayout(
		keys.String("host", logHost, setLogHost),
		keys.Int64("ts", logTime, setLogTime),
		keys.String("event", logEvent, setLogEvent),
	)
	if err != nil {
		return nil, layoutError(LogDataByHostName, err)
	}
	return schema.New(schema.Spec[LogEvent]{
		Name:     LogDataByHostName,
		Families: logFamilies(),
		Key:      key,
		Columns:  []schema.Column[LogEvent]{logMessageColumn()},
	})
}

// LogDataMD5 returns the fixed-width LOG_DATA variant of the book:
// [MD5 of hostname] (16 bytes) + [MD5 of event type] (16 bytes) +
// [timestamp] (8 bytes), 40 bytes whatever the names. The hashes cannot be
// decoded, so host and event are also stored as columns; decoding a row
// gives the whole record back. Pre-split into 16 regions on the first
// byte of the host hash.
func LogDataMD5() (*schema.Table[LogEvent], error) {
	key, err := keys.NewLayout(
		keys.MD5("host_md5", 16, logHost),
		keys.MD5("event_md5", 16, logEvent),
		keys.Int64("ts", logTime, setLogTime),
	)
	if err != nil {
		return nil, layoutError(LogDataMD5Name, err)
	}
	return schema.New(schema.Spec[LogEvent]{
		Name:     LogDataMD5Name,
		Families: logFamilies(),
		Key:      key,
		From:     map[string]string{"host_md5": "host", "event_md5": "event"},
		Splits:   schema.Splits{Regions: LogDataMD5Regions},
		Columns: []schema.Column[LogEvent]{
			schema.StringColumn("host", "l", "h", logHost, setLogHost),
			schema.StringColumn("event", "l", "e", logEvent, setLogEvent),
			logMessageColumn(),
		},
	})
}
