package schema

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"
)

// seed001Attributes is the family of seed 001's create statement:
// {NAME=>'CF1', BLOOMFILTER=>'ROW', BLOCKSIZE=>'65536', VERSIONS=>'3',
// COMPRESSION=>'SNAPPY', BLOCKCACHE=>'true', IN_MEMORY=>'false', TTL=>'3600'}.
var seed001Attributes = map[string]string{
	"BLOOMFILTER":         "ROW",
	"BLOCKSIZE":           "65536",
	"VERSIONS":            "3",
	"COMPRESSION":         "SNAPPY",
	"BLOCKCACHE":          "true",
	"IN_MEMORY":           "false",
	"TTL":                 "3600",
	"MIN_VERSIONS":        "0",
	"DATA_BLOCK_ENCODING": "NONE",
}

func TestFamilyAttributes(t *testing.T) {
	tests := []struct {
		name string
		f    Family
		want map[string]string
	}{
		{
			name: "all defaults",
			f:    Family{Name: "cf"},
			want: map[string]string{
				"BLOOMFILTER": "ROW", "VERSIONS": "1", "MIN_VERSIONS": "0", "COMPRESSION": "NONE",
				"TTL": "2147483647", "BLOCKSIZE": "65536", "IN_MEMORY": "false", "BLOCKCACHE": "true",
				"DATA_BLOCK_ENCODING": "NONE",
			},
		},
		{
			name: "seed 001",
			f: Family{Name: "CF1", BloomFilter: BloomRow, BlockSize: 65536, Versions: 3,
				Compression: CompressionSnappy, BlockCache: On, InMemory: Off, TTL: time.Hour},
			want: seed001Attributes,
		},
		{
			name: "everything off the default",
			f: Family{Name: "d", BloomFilter: BloomRowCol, Versions: 5, MinVersions: 2,
				Compression: CompressionZSTD, TTL: 7 * 24 * time.Hour, BlockSize: 16384,
				InMemory: On, BlockCache: Off, DataBlockEncoding: EncodingFastDiff},
			want: map[string]string{
				"BLOOMFILTER": "ROWCOL", "VERSIONS": "5", "MIN_VERSIONS": "2", "COMPRESSION": "ZSTD",
				"TTL": "604800", "BLOCKSIZE": "16384", "IN_MEMORY": "true", "BLOCKCACHE": "false",
				"DATA_BLOCK_ENCODING": "FAST_DIFF",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.f.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got := tt.f.Attributes()
			if !maps.Equal(got, tt.want) {
				t.Errorf("Attributes() = %v, want %v", got, tt.want)
			}
			sorted := tt.f.SortedAttributes()
			if len(sorted) != len(AttributeNames()) {
				t.Fatalf("SortedAttributes has %d entries, want %d", len(sorted), len(AttributeNames()))
			}
			for i, a := range sorted {
				if a.Name != AttributeNames()[i] {
					t.Errorf("SortedAttributes()[%d] = %s, want %s", i, a.Name, AttributeNames()[i])
				}
			}
			// Round trip: what HBase describes back parses to a family without drift.
			back, err := ParseFamily(tt.f.Name, got)
			if err != nil {
				t.Fatalf("ParseFamily(Attributes()): %v", err)
			}
			if d := tt.f.Diff(back); d != nil {
				t.Errorf("Diff after round trip = %+v, want none", d)
			}
		})
	}
}

func TestNewFamilyMatchesLiteral(t *testing.T) {
	f, err := NewFamily("CF1", WithBloomFilter(BloomRow), WithBlockSize(65536), WithVersions(3),
		WithCompression(CompressionSnappy), WithBlockCache(true), WithInMemory(false), WithTTL(3600*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Attributes(); !maps.Equal(got, seed001Attributes) {
		t.Errorf("Attributes() = %v, want %v", got, seed001Attributes)
	}
}

func TestParseFamilyHBaseSpellings(t *testing.T) {
	// What the shell accepts and HBase stores: lower-case enum names, FOREVER,
	// upper-case booleans, plus attributes this package does not model.
	f, err := ParseFamily("cf", map[string]string{
		"BLOOMFILTER": "rowcol", "COMPRESSION": "snappy", "TTL": "FOREVER", "IN_MEMORY": "TRUE",
		"DATA_BLOCK_ENCODING": "prefix", "KEEP_DELETED_CELLS": "FALSE", "REPLICATION_SCOPE": "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Family{Name: "cf", BloomFilter: BloomRowCol, Compression: CompressionSnappy, TTL: Forever,
		InMemory: On, DataBlockEncoding: EncodingPrefix}
	if f != want {
		t.Errorf("ParseFamily = %+v, want %+v", f, want)
	}
}

func TestFamilyDiff(t *testing.T) {
	declared := Family{Name: "cf", Versions: 3, Compression: CompressionSnappy}
	// HBase described the family with the defaults spelled out, but VERSIONS
	// drifted to 1 and someone switched the block cache off.
	described, err := ParseFamily("cf", map[string]string{
		"BLOOMFILTER": "ROW", "VERSIONS": "1", "MIN_VERSIONS": "0", "COMPRESSION": "SNAPPY",
		"TTL": "2147483647", "BLOCKSIZE": "65536", "IN_MEMORY": "false", "BLOCKCACHE": "false",
		"DATA_BLOCK_ENCODING": "NONE",
	})
	if err != nil {
		t.Fatal(err)
	}
	got := declared.Diff(described)
	want := []Drift{
		{Option: "VERSIONS", Declared: "3", Actual: "1"},
		{Option: "BLOCKCACHE", Declared: "true", Actual: "false"},
	}
	if len(got) != len(want) {
		t.Fatalf("Diff = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Diff[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestFamilyErrors(t *testing.T) {
	long := strings.Repeat("f", 128)
	tests := []struct {
		name      string
		build     func() error
		wantKind  error
		wantField string
	}{
		{"VERSIONS=0 option", func() error { _, err := NewFamily("cf", WithVersions(0)); return err }, ErrInvalidOption, "VERSIONS"},
		{"VERSIONS=0 attribute", func() error { _, err := ParseFamily("cf", map[string]string{"VERSIONS": "0"}); return err }, ErrInvalidOption, "VERSIONS"},
		{"VERSIONS negative", func() error { return Family{Name: "cf", Versions: -1}.Validate() }, ErrInvalidOption, "VERSIONS"},
		{"VERSIONS not a number", func() error { _, err := ParseFamily("cf", map[string]string{"VERSIONS": "three"}); return err }, ErrInvalidOption, "VERSIONS"},
		{"MIN_VERSIONS above VERSIONS", func() error { return Family{Name: "cf", Versions: 2, MinVersions: 3}.Validate() }, ErrInvalidOption, "MIN_VERSIONS"},
		{"MIN_VERSIONS negative", func() error { _, err := NewFamily("cf", WithMinVersions(-1)); return err }, ErrInvalidOption, "MIN_VERSIONS"},
		{"unknown compression", func() error { return Family{Name: "cf", Compression: "GZIP"}.Validate() }, ErrInvalidOption, "COMPRESSION"},
		{"unknown compression option", func() error { _, err := NewFamily("cf", WithCompression("LZ77")); return err }, ErrInvalidOption, "COMPRESSION"},
		{"unknown compression attribute", func() error { _, err := ParseFamily("cf", map[string]string{"COMPRESSION": "deflate"}); return err }, ErrInvalidOption, "COMPRESSION"},
		{"unknown bloom", func() error { return Family{Name: "cf", BloomFilter: "COL"}.Validate() }, ErrInvalidOption, "BLOOMFILTER"},
		{"removed encoding", func() error { return Family{Name: "cf", DataBlockEncoding: "PREFIX_TREE"}.Validate() }, ErrInvalidOption, "DATA_BLOCK_ENCODING"},
		{"TTL zero option", func() error { _, err := NewFamily("cf", WithTTL(0)); return err }, ErrInvalidOption, "TTL"},
		{"TTL fraction", func() error { return Family{Name: "cf", TTL: 1500 * time.Millisecond}.Validate() }, ErrInvalidOption, "TTL"},
		{"TTL beyond forever", func() error { return Family{Name: "cf", TTL: Forever + time.Second}.Validate() }, ErrInvalidOption, "TTL"},
		{"TTL attribute", func() error { _, err := ParseFamily("cf", map[string]string{"TTL": "1 DAY"}); return err }, ErrInvalidOption, "TTL"},
		{"BLOCKSIZE small", func() error { return Family{Name: "cf", BlockSize: 512}.Validate() }, ErrInvalidOption, "BLOCKSIZE"},
		{"BLOCKSIZE large", func() error { _, err := NewFamily("cf", WithBlockSize(32<<20)); return err }, ErrInvalidOption, "BLOCKSIZE"},
		{"IN_MEMORY not bool", func() error { _, err := ParseFamily("cf", map[string]string{"IN_MEMORY": "yes"}); return err }, ErrInvalidOption, "IN_MEMORY"},
		{"name too long", func() error { return Family{Name: long}.Validate() }, ErrInvalidName, "name"},
		{"name empty", func() error { return Family{}.Validate() }, ErrInvalidName, "family name"},
		{"name with colon", func() error { _, err := NewFamily("c:f"); return err }, ErrInvalidName, "name"},
		{"name with slash", func() error { return Family{Name: "c/f"}.Validate() }, ErrInvalidName, "name"},
		{"name leading dot", func() error { return Family{Name: ".cf"}.Validate() }, ErrInvalidName, "name"},
		{"name control char", func() error { return Family{Name: "c\x00f"}.Validate() }, ErrInvalidName, "name"},
		{"name reserved", func() error { return Family{Name: "recovered.edits"}.Validate() }, ErrInvalidName, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.build()
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("error = %v, want %v", err, tt.wantKind)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *Error", err)
			}
			if se.Field != tt.wantField {
				t.Errorf("Field = %q, want %q (error: %v)", se.Field, tt.wantField, err)
			}
			if se.Reason == "" {
				t.Errorf("empty Reason in %v", err)
			}
			if tt.wantField != "family name" && se.Family == "" {
				t.Errorf("error does not name the family: %v", err)
			}
		})
	}
}

func TestFamilyNameLimit(t *testing.T) {
	if err := (Family{Name: strings.Repeat("f", MaxFamilyNameLen)}).Validate(); err != nil {
		t.Errorf("a %d-byte name must be valid: %v", MaxFamilyNameLen, err)
	}
}

func TestDiffFamilies(t *testing.T) {
	declared := []Family{{Name: "a", Versions: 2}, {Name: "b"}}
	live := map[string]map[string]string{"a": {"VERSIONS": "2"}, "c": {}}
	got, err := DiffFamilies(declared, live)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Family != "b" || !got[0].Missing || got[1].Family != "c" || !got[1].Extra {
		t.Errorf("DiffFamilies = %+v, want b missing and c extra", got)
	}
	if got, err := DiffFamilies(declared[:1], map[string]map[string]string{"a": {"VERSIONS": "2"}}); err != nil || got != nil {
		t.Errorf("DiffFamilies of equal families = %+v, %v; want nil, nil", got, err)
	}
	_, err = DiffFamilies(declared, map[string]map[string]string{"a": {"COMPRESSION": "GZIP"}})
	if !errors.Is(err, ErrInvalidOption) {
		t.Errorf("DiffFamilies with an unknown live compression: error = %v, want ErrInvalidOption", err)
	}
}
