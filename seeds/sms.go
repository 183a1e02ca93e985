package seeds

import (
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// SMS is one text message of the seed-000 SMS store: who it went to, when,
// from which account, what it said and whether it arrived.
type SMS struct {
	Mobile    string    // 11 digits, e.g. "13812345678"
	SentAt    time.Time // millisecond precision; decoded in UTC
	Seq       uint64    // unique suffix for messages in the same millisecond, < 0x10000
	Account   string    // sending account
	Content   string
	Delivered bool
}

// Names of the SMS tables.
const (
	SMSTableName      = "sms"
	SMSIndexTableName = "sms_index"
)

// SMS key widths and region counts from seed 000. Changing any of them is
// a data migration.
const (
	SMSMobileWidth   = 11 // mobile numbers, fixed width
	SMSSeqWidth      = 4  // hex digits of the unique suffix
	SMSRegions       = 20 // data table: SPLITS '05','10',…,'95'
	SMSIndexBuckets  = 10 // index table: hash(mobile) % 10, SPLITS '1'…'9'
	SMSAccountMD5Hex = 16 // hex digits of md5(account) in the index key
)

// SMSTable returns the seed-000 SMS data table and its index.
//
// Data row key: reversed mobile (11 digits) + reversed timestamp (19
// digits, Long.MAX_VALUE - ms, newest first) + unique suffix (4 hex
// digits). The table is pre-split on the two leading digits into 20
// regions, 05, 10, …, 95: the reversed mobile starts with the mobile's
// last digits, which are close to uniform.
//
// Index row key (table sms_index): hash(mobile) % 10 (1 digit) + the UTC
// date yyyyMMdd + md5(account) (16 hex digits) + mobile (11 digits, not
// reversed) + reversed time of day (9 digits, latest first) + the same
// unique suffix, pre-split at '1' … '9'. An index entry carries the data
// row key (qualifier "row") and the delivered flag, so per-day, per-account
// statistics need no read of the data table.
//
// Dates and times of day are taken in UTC; a deployment that wants local
// days must declare its own schema (and that choice is a data migration).
//
// The schema declares itself insert-only (WriteMode InsertOnly): a message
// is written once and never rewritten with other values.
func SMSTable() (*schema.Table[SMS], error) {
	spec, err := builtinSMSSpec()
	if err != nil {
		return nil, err
	}
	return schema.New(spec)
}

// SMSDataTable returns the SMS data table of SMSTable under another name,
// declared without its index: the same key, families, columns and check.
// It measures what the index costs (make demo loads both), and serves
// code that keeps messages without the index.
func SMSDataTable(name string) (*schema.Table[SMS], error) {
	spec, err := builtinSMSSpec()
	if err != nil {
		return nil, err
	}
	spec.Name, spec.Indexes = name, nil
	return schema.New(spec)
}

func builtinSMSSpec() (schema.Spec[SMS], error) {
	mobile := func(s *SMS) string { return s.Mobile }
	setMobile := func(s *SMS, v string) { s.Mobile = v }
	seq := func(s *SMS) uint64 { return s.Seq }
	setSeq := func(s *SMS, v uint64) { s.Seq = v }

	dataKey, err := keys.NewLayout(
		keys.ReversedDigits("mobile", SMSMobileWidth, mobile, setMobile),
		keys.ReversedTimestamp("sent",
			func(s *SMS) int64 { return s.SentAt.UnixMilli() },
			func(s *SMS, ms int64) { s.SentAt = time.UnixMilli(ms).UTC() }),
		keys.Unique("unique", SMSSeqWidth, seq, setSeq),
	)
	if err != nil {
		return schema.Spec[SMS]{}, layoutError(SMSTableName, err)
	}
	indexKey, err := keys.NewLayout(
		keys.HashBucket("bucket", SMSIndexBuckets, mobile, nil),
		keys.Date("day", func(s *SMS) time.Time { return s.SentAt.UTC() }, nil),
		keys.MD5Hex("account_md5", SMSAccountMD5Hex, func(s *SMS) string { return s.Account }),
		keys.Digits("mobile", SMSMobileWidth, mobile, setMobile),
		keys.ReversedTimeOfDay("time", func(s *SMS) time.Duration { return keys.TimeOfDay(s.SentAt.UTC()) }, nil),
		keys.Unique("unique", SMSSeqWidth, seq, setSeq),
	)
	if err != nil {
		return schema.Spec[SMS]{}, layoutError(SMSIndexTableName, err)
	}
	return schema.Spec[SMS]{
		Name:     SMSTableName,
		Validate: ValidateSMS,
		Writes:   schema.InsertOnly, // a message is never rewritten with other values
		Families: []schema.Family{{
			Name: "cf", BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy,
		}},
		Key:    dataKey,
		Splits: schema.Splits{Regions: SMSRegions},
		Columns: []schema.Column[SMS]{
			schema.StringColumn("account", "cf", "a",
				func(s *SMS) string { return s.Account }, func(s *SMS, v string) { s.Account = v }),
			schema.StringColumn("content", "cf", "c",
				func(s *SMS) string { return s.Content }, func(s *SMS, v string) { s.Content = v }),
			schema.BoolColumn("delivered", "cf", "d",
				func(s *SMS) bool { return s.Delivered }, func(s *SMS, v bool) { s.Delivered = v }),
		},
		Indexes: []schema.IndexSpec[SMS]{{
			Name: SMSIndexTableName,
			Families: []schema.Family{{
				Name: "cf", BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy,
				DataBlockEncoding: schema.EncodingFastDiff,
			}},
			Key: indexKey,
			From: map[string]string{
				"bucket": "mobile", "day": "sent", "account_md5": "account", "time": "sent",
			},
			Splits:          schema.Splits{Regions: SMSIndexBuckets},
			Columns:         []string{"delivered"},
			RowKeyQualifier: "row",
		}},
	}, nil
}

// Bounds of a valid SMS send time: the Unix epoch (the reversed timestamp
// holds no earlier instant) and the end of year 9999 (the index key's
// yyyyMMdd date holds no later one).
var (
	SMSMinTime = time.Unix(0, 0).UTC()
	SMSMaxTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// ValidateSMS is the SMS table's check (Spec.Validate): an 11-digit
// mobile, a sending account, and a send time in [SMSMinTime, SMSMaxTime).
// Errors come from Invalid and name the field.
func ValidateSMS(m *SMS) error {
	if len(m.Mobile) != SMSMobileWidth {
		return schema.Invalid("mobile", "want 11 digits")
	}
	for i := 0; i < len(m.Mobile); i++ {
		if c := m.Mobile[i]; c < '0' || c > '9' {
			return schema.Invalid("mobile", "want 11 digits")
		}
	}
	if m.Account == "" {
		return schema.Invalid("account", "missing")
	}
	if m.SentAt.Before(SMSMinTime) || !m.SentAt.Before(SMSMaxTime) {
		return schema.Invalid("sent", "send time out of range [1970-01-01, 9999-12-31]")
	}
	return nil
}
