package schema_test

import (
	"errors"
	"testing"
	"time"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"

	"github.com/hbkit/hbkit/keys"
)

// userSpec is seed 001's TestTable, [md5(uid) 6 hex][uid], with one index
// keyed by the given segments.
func userSpec(t *testing.T, from map[string]string, fields ...keys.Field[seeds.User]) Spec[seeds.User] {
	t.Helper()
	uid := func(u *seeds.User) string { return u.UID }
	key, err := keys.NewLayout(
		keys.MD5Hex("uid_md5", 6, uid),
		keys.String("uid", uid, func(u *seeds.User, v string) { u.UID = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(fields...)
	if err != nil {
		t.Fatal(err)
	}
	return Spec[seeds.User]{
		Name:     seeds.TestTableName,
		Families: []Family{seeds.TestTableFamily()},
		Key:      key,
		Columns: []Column[seeds.User]{
			StringColumn("province", "CF1", "province", func(u *seeds.User) string { return u.Province }, func(u *seeds.User, v string) { u.Province = v }),
			Int64Column("age", "CF1", "age", func(u *seeds.User) int64 { return u.Age }, func(u *seeds.User, v int64) { u.Age = v }),
		},
		Indexes: []IndexSpec[seeds.User]{{
			Name: "user_by_province_age", Families: []Family{{Name: "i"}}, Key: ixKey, From: from,
		}},
	}
}

var (
	userProvince = keys.String("province", func(u *seeds.User) string { return u.Province }, func(u *seeds.User, v string) { u.Province = v })
	userAge      = keys.Int64("age", func(u *seeds.User) int64 { return u.Age }, func(u *seeds.User, v int64) { u.Age = v })
	userUID      = keys.String("uid", func(u *seeds.User) string { return u.UID }, func(u *seeds.User, v string) { u.UID = v })

	joinedProvince = keys.TextString("province", func(u *seeds.User) string { return u.Province }, func(u *seeds.User, v string) { u.Province = v })
	joinedAge      = keys.TextInt("age", func(u *seeds.User) int64 { return u.Age }, func(u *seeds.User, v int64) { u.Age = v })
)

// smsSpec is the built-in SMS data key, [mobile][sent][unique], with one
// index keyed by the given segments.
func smsSpec(t *testing.T, from map[string]string, fields ...keys.Field[seeds.SMS]) Spec[seeds.SMS] {
	t.Helper()
	key, err := keys.NewLayout(
		keys.ReversedDigits("mobile", seeds.SMSMobileWidth, smsMobile, func(s *seeds.SMS, v string) { s.Mobile = v }),
		keys.ReversedTimestamp("sent", smsMillis, func(s *seeds.SMS, ms int64) { s.SentAt = time.UnixMilli(ms).UTC() }),
		smsUnique,
	)
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(fields...)
	if err != nil {
		t.Fatal(err)
	}
	return Spec[seeds.SMS]{
		Name:     "sms_test",
		Families: []Family{{Name: "cf"}},
		Key:      key,
		Columns: []Column[seeds.SMS]{
			StringColumn("account", "cf", "a", func(s *seeds.SMS) string { return s.Account }, func(s *seeds.SMS, v string) { s.Account = v }),
		},
		Indexes: []IndexSpec[seeds.SMS]{{Name: "sms_test_index", Families: []Family{{Name: "cf"}}, Key: ixKey, From: from}},
	}
}

var (
	smsMobile = func(s *seeds.SMS) string { return s.Mobile }
	smsMillis = func(s *seeds.SMS) int64 { return s.SentAt.UnixMilli() }
	smsUnique = keys.Unique("unique", seeds.SMSSeqWidth, func(s *seeds.SMS) uint64 { return s.Seq }, func(s *seeds.SMS, v uint64) { s.Seq = v })
	smsDigits = keys.Digits("mobile", seeds.SMSMobileWidth, smsMobile, func(s *seeds.SMS, v string) { s.Mobile = v })
	smsDay    = keys.Date("day", func(s *seeds.SMS) time.Time { return s.SentAt.UTC() }, nil)
	smsDayDec = keys.Date("day", func(s *seeds.SMS) time.Time { return s.SentAt.UTC() }, func(s *seeds.SMS, v time.Time) { s.SentAt = v })
	smsClock  = keys.ReversedTimeOfDay("time", func(s *seeds.SMS) time.Duration { return keys.TimeOfDay(s.SentAt.UTC()) }, nil)
)

// derivedSpec has a data key [salt][bucket(name)][id] whose salt and bucket
// are decodable; its index is keyed by the given segments.
func derivedSpec(t *testing.T, from map[string]string, fields ...keys.Field[testRec]) Spec[testRec] {
	t.Helper()
	key, err := keys.NewLayout(
		keys.Salt("salt", 4, nil, func(*testRec, int) {}),
		keys.HashBucket("bucket", 4, func(r *testRec) string { return r.Name }, func(*testRec, int) {}),
		keys.String("id", func(r *testRec) string { return r.ID }, func(r *testRec, v string) { r.ID = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(fields...)
	if err != nil {
		t.Fatal(err)
	}
	return Spec[testRec]{
		Name:     "derived",
		Families: []Family{{Name: "f"}},
		Key:      key,
		Columns: []Column[testRec]{
			StringColumn("name", "f", "n", func(r *testRec) string { return r.Name }, func(r *testRec, v string) { r.Name = v }),
		},
		Indexes: []IndexSpec[testRec]{{Name: "derived_idx", Families: []Family{{Name: "i"}}, Key: ixKey, From: from}},
	}
}

func newErr[T any](spec Spec[T]) error {
	_, err := New(spec)
	return err
}

func TestIndexKeyMustDetermineRecord(t *testing.T) {
	uidMD5 := keys.MD5Hex("uid_hash", 16, func(u *seeds.User) string { return u.UID })
	uidBucket := keys.HashBucket("uid_bucket", 100, func(u *seeds.User) string { return u.UID }, func(*seeds.User, int) {})
	tests := []struct {
		name   string
		err    func(t *testing.T) error
		field  string // "" when New must succeed
		reason string
	}{
		// Seed 001's province_age index with the uid in a column: many
		// users share one index row.
		{"seed001 province age without uid", func(t *testing.T) error {
			return newErr(userSpec(t, nil, userProvince, userAge))
		}, "index user_by_province_age", `key does not determine a record: data-key field "uid" is not in the index key`},
		{"seed001 province age uid", func(t *testing.T) error {
			return newErr(userSpec(t, nil, userProvince, userAge, userUID))
		}, "", ""},
		{"uid not decodable", func(t *testing.T) error {
			return newErr(userSpec(t, nil, userProvince, keys.String("uid", func(u *seeds.User) string { return u.UID }, nil)))
		}, "", ""},
		// The same index as Java writes it: province + "_" + age (+ "_" + uid).
		{"seed001 joined province_age without uid", func(t *testing.T) error {
			return newErr(userSpec(t, nil, keys.Joined("_", joinedProvince, joinedAge)...))
		}, "index user_by_province_age", `key does not determine a record: data-key field "uid" is not in the index key`},
		{"seed001 joined province_age_uid, uid write-only", func(t *testing.T) error {
			return newErr(userSpec(t, nil, keys.Joined("_", joinedProvince, joinedAge,
				keys.TextString("uid", func(u *seeds.User) string { return u.UID }, nil))...))
		}, "", ""},
		{"uid as a trailing string", func(t *testing.T) error {
			return newErr(userSpec(t, nil, userProvince, keys.TrailingString("uid", func(u *seeds.User) string { return u.UID }, nil)))
		}, "", ""},
		{"uid as md5 only", func(t *testing.T) error {
			return newErr(userSpec(t, map[string]string{"uid_hash": "uid"}, userProvince, userAge, uidMD5))
		}, "index user_by_province_age", `key does not determine a record: data-key field "uid" is not in the index key`},
		{"uid as decodable bucket only", func(t *testing.T) error {
			return newErr(userSpec(t, map[string]string{"uid_bucket": "uid"}, uidBucket, userProvince))
		}, "index user_by_province_age", `key does not determine a record: data-key field "uid" is not in the index key`},
		{"literal and salt do not count", func(t *testing.T) error {
			return newErr(userSpec(t, nil, keys.Salt[seeds.User]("salt", 4, nil, nil), keys.Literal[seeds.User]("tag", "x"), userProvince))
		}, "index user_by_province_age", `key does not determine a record: data-key field "uid" is not in the index key`},

		// The SMS data key [mobile][sent][unique].
		{"sms builtin shape", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"bucket": "mobile", "day": "sent", "time": "sent"},
				keys.HashBucket("bucket", 10, smsMobile, nil), smsDay, smsDigits, smsClock, smsUnique))
		}, "", ""},
		{"sms day without time", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"day": "sent"}, smsDay, smsDigits, smsUnique))
		}, "index sms_test_index", `key does not determine a record: data-key field "sent" is not in the index key`},
		{"sms decodable day without time", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"day": "sent"}, smsDayDec, smsDigits, smsUnique))
		}, "index sms_test_index", `key does not determine a record: data-key field "sent" is not in the index key`},
		{"sms time without day", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"time": "sent"}, smsDigits, smsClock, smsUnique))
		}, "index sms_test_index", `key does not determine a record: data-key field "sent" is not in the index key`},
		{"sms write-only reversed timestamp", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"sent_rev": "sent"}, smsDigits, keys.ReversedTimestamp("sent_rev", smsMillis, nil), smsUnique))
		}, "", ""},
		{"sms write-only binary reversed timestamp", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"sent_bin": "sent"}, smsDigits, keys.ReversedTimestampBinary("sent_bin", smsMillis, nil), smsUnique))
		}, "", ""},
		{"sms write-only int64 millis", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"ms": "sent"}, smsDigits, keys.Int64("ms", smsMillis, nil), smsUnique))
		}, "", ""},
		{"sms every missing field listed", func(t *testing.T) error {
			return newErr(smsSpec(t, map[string]string{"bucket": "mobile", "day": "sent"},
				keys.HashBucket("bucket", 10, smsMobile, nil), smsDay))
		}, "index sms_test_index", `key does not determine a record: data-key fields "mobile", "sent", "unique" are not in the index key`},

		// Decodable salts and buckets of the data key are derived, not required.
		{"derived data-key segments not required", func(t *testing.T) error {
			return newErr(derivedSpec(t, nil, keys.String("id", func(r *testRec) string { return r.ID }, nil)))
		}, "", ""},
		{"derived data key without id", func(t *testing.T) error {
			return newErr(derivedSpec(t, nil, keys.String("name", func(r *testRec) string { return r.Name }, nil)))
		}, "index derived_idx", `key does not determine a record: data-key field "id" is not in the index key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err(t)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("New error = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrIndexNotUnique) {
				t.Fatalf("New error = %v, want ErrIndexNotUnique", err)
			}
			if !errors.Is(err, ErrInvalidTable) {
				t.Errorf("New error = %v, does not match ErrInvalidTable", err)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("New error %T is not a *Error", err)
			}
			if se.Table == "" {
				t.Errorf("error does not name the table: %v", err)
			}
			if se.Field != tt.field {
				t.Errorf("Field = %q, want %q", se.Field, tt.field)
			}
			if se.Reason != tt.reason {
				t.Errorf("Reason = %q, want %q", se.Reason, tt.reason)
			}
		})
	}
}

// The uniqueness check must not hide the duplicate-name check of New.
func TestIndexDuplicateNameWithUniqueKey(t *testing.T) {
	spec := userSpec(t, nil, userProvince, userUID)
	spec.Indexes[0].Name = seeds.TestTableName
	_, err := New(spec)
	if errors.Is(err, ErrIndexNotUnique) || !errors.Is(err, ErrInvalidTable) {
		t.Fatalf("New error = %v, want ErrInvalidTable but not ErrIndexNotUnique", err)
	}
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("New error %T is not a *Error", err)
	}
	if got, want := se.Reason, "duplicate table name"; got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
}

func TestBuiltinIndexesDetermineRecords(t *testing.T) {
	constructors := []struct {
		name  string
		build func() error
	}{
		{"SMSTable", func() error { _, err := seeds.SMSTable(); return err }},
		{"TestTable", func() error { _, err := seeds.TestTable(); return err }},
		{"CustomerOrderTable", func() error { _, err := seeds.CustomerOrderTable(); return err }},
		{"OrderMD5Table", func() error { _, err := seeds.OrderMD5Table(); return err }},
		{"LogDataBucketed", func() error { _, err := seeds.LogDataBucketed(); return err }},
		{"LogDataByHost", func() error { _, err := seeds.LogDataByHost(); return err }},
		{"LogDataMD5", func() error { _, err := seeds.LogDataMD5(); return err }},
	}
	for _, c := range constructors {
		t.Run(c.name, func(t *testing.T) {
			if err := c.build(); err != nil {
				t.Errorf("got error %v, want nil", err)
			}
		})
	}
	names := seeds.BuiltinNames()
	if len(names) == 0 {
		t.Fatal("BuiltinNames is empty")
	}
	for _, name := range names {
		t.Run("Builtin "+name, func(t *testing.T) {
			if _, err := seeds.Builtin(name); err != nil {
				t.Errorf("Builtin(%q) error = %v, want nil", name, err)
			}
		})
	}
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tbl.Index(seeds.SMSIndexTableName); !ok {
		t.Errorf("SMSTable has no index %q", seeds.SMSIndexTableName)
	}
}
