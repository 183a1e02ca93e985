package schema

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

type fieldsStatus string

type fieldsBase struct {
	Tenant  string `hbkit:"tenant"`
	Created time.Time
}

// fieldsRecord has a field of every supported kind, named types, pointers,
// an embedded struct, a skipped field and an unsupported one.
type fieldsRecord struct {
	fieldsBase
	ID       string `hbkit:"id"`
	Status   fieldsStatus
	Body     []byte
	I8       int8
	I16      int16
	I32      int32
	I        int
	I64      int64
	U8       uint8
	U16      uint16
	U32      uint32
	U        uint
	U64      uint64
	F32      float32
	F64      float64
	OK       bool
	TTL      time.Duration
	Nick     *string
	Score    *int32
	Seen     *time.Time
	Tags     map[string]string
	Secret   string `hbkit:"-"`
	internal int
}

func TestStructFieldsNames(t *testing.T) {
	fs, err := StructFields[fieldsRecord]()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tenant", "created", "id", "status", "body", "i8", "i16", "i32", "i", "i64",
		"u8", "u16", "u32", "u", "u64", "f32", "f64", "ok", "ttl", "nick", "score", "seen", "tags"}
	if got := fs.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

// TestStructFieldsRoundTrip sets every field through its accessor and
// reads it back, both directly and through the record's Go fields.
func TestStructFieldsRoundTrip(t *testing.T) {
	fs, err := StructFields[fieldsRecord]()
	if err != nil {
		t.Fatal(err)
	}
	zone := time.FixedZone("CST", 8*3600)
	when := time.Date(2026, 11, 27, 23, 5, 0, 123e6, zone)
	r := fieldsRecord{internal: 7} // left alone: unexported
	setString(t, fs, &r, "tenant", "acme")
	setString(t, fs, &r, "id", "u1")
	setString(t, fs, &r, "status", "open")
	setString(t, fs, &r, "body", "hi")
	for i, n := range []string{"i8", "i16", "i32", "i", "i64"} {
		setInt(t, fs, &r, n, int64(-10-i))
	}
	for i, n := range []string{"u8", "u16", "u32", "u", "u64"} {
		setUint(t, fs, &r, n, uint64(10+i))
	}
	for _, n := range []string{"f32", "f64"} {
		get, set, err := fs.Float64(n)
		if err != nil {
			t.Fatal(err)
		}
		set(&r, 2.5)
		if got := get(&r); got != 2.5 {
			t.Errorf("%s: got %v, want 2.5", n, got)
		}
	}
	getB, setB, err := fs.Bool("ok")
	if err != nil {
		t.Fatal(err)
	}
	setB(&r, true)
	getD, setD, err := fs.Duration("ttl")
	if err != nil {
		t.Fatal(err)
	}
	setD(&r, time.Minute)
	for _, n := range []string{"created", "seen"} {
		get, set, err := fs.Time(n)
		if err != nil {
			t.Fatal(err)
		}
		set(&r, when)
		if got := get(&r); !got.Equal(when) || got.Location() != zone {
			t.Errorf("%s: got %v, want %v in its zone", n, got, when)
		}
	}
	setString(t, fs, &r, "nick", "annie")
	setInt(t, fs, &r, "score", 42)

	want := fieldsRecord{
		fieldsBase: fieldsBase{Tenant: "acme", Created: when},
		ID:         "u1", Status: "open", Body: []byte("hi"),
		I8: -10, I16: -11, I32: -12, I: -13, I64: -14,
		U8: 10, U16: 11, U32: 12, U: 13, U64: 14,
		F32: 2.5, F64: 2.5, OK: true, TTL: time.Minute,
		Nick: ptr("annie"), Score: ptr(int32(42)), Seen: &when, internal: 7,
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("record after sets:\n got %+v\nwant %+v", r, want)
	}
	if !getB(&r) || getD(&r) != time.Minute {
		t.Errorf("bool/duration read back %v %v", getB(&r), getD(&r))
	}
}

func ptr[V any](v V) *V { return &v }

func setString(t *testing.T, fs Fields[fieldsRecord], r *fieldsRecord, name, v string) {
	t.Helper()
	get, set, err := fs.String(name)
	if err != nil {
		t.Fatal(err)
	}
	set(r, v)
	if got := get(r); got != v {
		t.Errorf("%s: got %q, want %q", name, got, v)
	}
	gb, _, err := fs.Bytes(name)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(gb(r)); got != v {
		t.Errorf("%s as bytes: got %q, want %q", name, got, v)
	}
}

func setInt(t *testing.T, fs Fields[fieldsRecord], r *fieldsRecord, name string, v int64) {
	t.Helper()
	get, set, err := fs.Int64(name)
	if err != nil {
		t.Fatal(err)
	}
	set(r, v)
	if got := get(r); got != v {
		t.Errorf("%s: got %d, want %d", name, got, v)
	}
}

func setUint(t *testing.T, fs Fields[fieldsRecord], r *fieldsRecord, name string, v uint64) {
	t.Helper()
	get, set, err := fs.Uint64(name)
	if err != nil {
		t.Fatal(err)
	}
	set(r, v)
	if got := get(r); got != v {
		t.Errorf("%s: got %d, want %d", name, got, v)
	}
}

// TestStructFieldsNilPointer: a nil pointer field reads as the zero value.
func TestStructFieldsNilPointer(t *testing.T) {
	fs, err := StructFields[fieldsRecord]()
	if err != nil {
		t.Fatal(err)
	}
	var r fieldsRecord
	gs, _, _ := fs.String("nick")
	gi, _, _ := fs.Int64("score")
	gt, _, _ := fs.Time("seen")
	if gs(&r) != "" || gi(&r) != 0 || !gt(&r).IsZero() {
		t.Errorf("nil pointers read %q %d %v, want zero values", gs(&r), gi(&r), gt(&r))
	}
}

func TestStructFieldsAccessErrors(t *testing.T) {
	fs, err := StructFields[fieldsRecord]()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		access func() error
		kind   error
		reason string
	}{
		{"unknown", func() error { _, _, err := fs.String("nope"); return err }, ErrUnknownField,
			"no such field in schema.fieldsRecord"},
		{"skipped", func() error { _, _, err := fs.String("secret"); return err }, ErrUnknownField,
			"no such field in schema.fieldsRecord"},
		{"int as bool", func() error { _, _, err := fs.Bool("i64"); return err }, ErrFieldType,
			"I64 is int64, not readable as bool"},
		{"string as int", func() error { _, _, err := fs.Int64("status"); return err }, ErrFieldType,
			"Status is schema.fieldsStatus, not readable as int64"},
		{"float as int", func() error { _, _, err := fs.Int64("f64"); return err }, ErrFieldType,
			"F64 is float64, not readable as int64"},
		{"int64 as duration", func() error { _, _, err := fs.Duration("i64"); return err }, ErrFieldType,
			"I64 is int64, not readable as time.Duration"},
		{"pointer as time", func() error { _, _, err := fs.Time("nick"); return err }, ErrFieldType,
			"Nick is *string, not readable as time.Time"},
		{"unsupported", func() error { _, _, err := fs.String("tags"); return err }, ErrFieldType,
			"Tags is map[string]string, not readable as string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.access()
			var se *Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &se) || se.Reason != tc.reason {
				t.Fatalf("got %v, want %v with reason %q", err, tc.kind, tc.reason)
			}
			if tc.kind == ErrFieldType && !errors.Is(err, ErrInvalidTable) {
				t.Errorf("%v does not wrap ErrInvalidTable", err)
			}
		})
	}
}

func TestStructFieldsDeclarationErrors(t *testing.T) {
	type dup struct {
		UID string
		ID  string `hbkit:"uid"`
	}
	type embeddedPtr struct {
		*fieldsBase
		ID string
	}
	type skippedPtr struct {
		*fieldsBase `hbkit:"-"`
		ID          string
	}
	type hidden struct {
		id string `hbkit:"id"`
	}
	type options struct {
		ID string `hbkit:"id,key"`
	}
	for _, tc := range []struct {
		name string
		fn   func() (int, error)
		kind error
	}{
		{"not a struct", names[string], ErrFieldType},
		{"duplicate name", names[dup], ErrInvalidTable},
		{"embedded pointer", names[embeddedPtr], ErrFieldType},
		{"tagged unexported", names[hidden], ErrFieldType},
		{"tag options", names[options], ErrFieldType},
		{"skipped embedded pointer", names[skippedPtr], nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.fn()
			if tc.kind == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var se *Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &se) {
				t.Fatalf("got %v, want a *Error of kind %v", err, tc.kind)
			}
			t.Log(err)
		})
	}
	_ = hidden{id: ""}
}

func names[T any]() (int, error) {
	fs, err := StructFields[T]()
	if err != nil {
		return 0, err
	}
	return len(fs.Names()), nil
}
