package admin_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/schema"
)

func TestLoadSchemaFileMatchesBuiltins(t *testing.T) {
	tests := []struct {
		file    string
		table   int
		builtin string
	}{
		{"testdata/sms.json", 0, "sms"},
		{"testdata/sms.json", 1, "sms_index"},
		{"testdata/seed001.json", 0, "TestTable"},
	}
	for _, tt := range tests {
		t.Run(tt.builtin, func(t *testing.T) {
			defs, err := admin.LoadSchemaFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got, want := mustPlan(t, defs[tt.table]), mustPlan(t, builtin(t, tt.builtin))
			if !slices.EqualFunc(got.SplitKeys, want.SplitKeys, func(a, b []byte) bool { return string(a) == string(b) }) {
				t.Errorf("split keys %q, want %q", got.SplitKeys, want.SplitKeys)
			}
			if len(got.Families) != len(want.Families) {
				t.Fatalf("%d families, want %d", len(got.Families), len(want.Families))
			}
			for i := range got.Families {
				if d := want.Families[i].Diff(got.Families[i]); d != nil || got.Families[i].Name != want.Families[i].Name {
					t.Errorf("family %s differs: %+v", got.Families[i].Name, d)
				}
			}
		})
	}
}

func TestLoadSchemaFileAlgorithms(t *testing.T) {
	defs, err := admin.LoadSchemaFile("testdata/hexsplit.json")
	if err != nil {
		t.Fatal(err)
	}
	p := mustPlan(t, defs[0])
	if p.Table != "app:events" || p.Namespace != "app" {
		t.Errorf("table %q namespace %q", p.Table, p.Namespace)
	}
	if want := []string{"40000000", "80000000", "c0000000"}; !slices.Equal(strs(p.SplitKeys), want) {
		t.Errorf("HexStringSplit(4) = %q, want %q", strs(p.SplitKeys), want)
	}
	if f := p.Families[0]; f.Name != "e" || f.TTL.Seconds() != 604800 || f.InMemory != schema.Off {
		t.Errorf("family e = %+v", f)
	}
}

func TestParseSchemaFile(t *testing.T) {
	const fam = `"families": [{"name": "cf"}]`
	table := func(rest string) string { return `{"tables": [{"name": "t", ` + fam + rest + `}]}` }
	tests := []struct {
		name   string
		in     string
		splits []string // when valid
		err    string   // when invalid
	}{
		{name: "minimal", in: table(""), splits: nil},
		{name: "explicit keys", in: table(`, "splits": {"keys": ["b", "a1"]}`), err: "not above"},
		{name: "sorted keys", in: table(`, "splits": {"keys": ["a1", "b"]}`), splits: []string{"a1", "b"}},
		{name: "hex keys", in: table(`, "splits": {"hex_keys": ["00ff", "7f"]}`), splits: []string{"\x00\xff", "\x7f"}},
		{name: "bad hex", in: table(`, "splits": {"hex_keys": ["0g"]}`), err: "hex_keys[0]"},
		{name: "decimal", in: table(`, "splits": {"algorithm": "DecimalStringSplit", "regions": 2}`), splits: []string{"50000000"}},
		{name: "uniform", in: table(`, "splits": {"algorithm": "UniformSplit", "regions": 2}`), splits: []string{"\x80\x00\x00\x00\x00\x00\x00\x00"}},
		{name: "decimal prefix", in: table(`, "splits": {"algorithm": "DecimalPrefixSplit", "width": 1, "regions": 5}`), splits: []string{"2", "4", "6", "8"}},
		{name: "bucket split", in: table(`, "splits": {"algorithm": "BucketSplit", "buckets": 4, "regions": 4}`), splits: []string{"1", "2", "3"}},
		{name: "regions from a bucket key", in: table(`, "key": [{"name": "b", "kind": "bucket", "buckets": 4, "from": "id"}, {"name": "id", "kind": "string"}], "splits": {"regions": 2}`), splits: []string{"2"}},
		{name: "regions from a string key", in: table(`, "splits": {"regions": 4}`), err: "no uniform keyspace"},
		{name: "unknown algorithm", in: table(`, "splits": {"algorithm": "Magic", "regions": 4}`), err: `unknown algorithm "Magic"`},
		{name: "two split kinds", in: table(`, "splits": {"keys": ["a"], "regions": 4}`), err: "exactly one of"},
		{name: "no split kind", in: table(`, "splits": {}`), err: "exactly one of"},
		{name: "width without algorithm", in: table(`, "splits": {"regions": 4, "width": 2}`), err: "need an algorithm"},
		{name: "width on hex split", in: table(`, "splits": {"algorithm": "HexStringSplit", "regions": 4, "width": 2}`), err: "takes no buckets or width"},
		{name: "unknown field", in: table(`, "colour": "red"`), err: `unknown field "colour"`},
		{name: "unknown option", in: `{"tables": [{"name": "t", "families": [{"name": "cf", "options": {"VERSION": 3}}]}]}`, err: `unknown option "VERSION"`},
		{name: "bad option value", in: `{"tables": [{"name": "t", "families": [{"name": "cf", "options": {"VERSIONS": 0}}]}]}`, err: "VERSIONS"},
		{name: "fractional option", in: `{"tables": [{"name": "t", "families": [{"name": "cf", "options": {"VERSIONS": 1.5}}]}]}`, err: "not an integer"},
		{name: "object option", in: `{"tables": [{"name": "t", "families": [{"name": "cf", "options": {"TTL": {}}}]}]}`, err: "want a string"},
		{name: "bad compression", in: `{"tables": [{"name": "t", "families": [{"name": "cf", "options": {"COMPRESSION": "GZIP"}}]}]}`, err: "unknown compression"},
		{name: "no families", in: `{"tables": [{"name": "t"}]}`, err: "at least one column family"},
		{name: "bad name", in: `{"tables": [{"name": "-t", ` + fam + `}]}`, err: "must not start"},
		{name: "no tables", in: `{"tables": []}`, err: "no tables"},
		{name: "twice", in: `{"tables": [{"name": "t", ` + fam + `}, {"name": "default:t", ` + fam + `}]}`, err: "declared twice"},
		{name: "trailing data", in: table("") + ` {}`, err: "data after"},
		{name: "not json", in: `tables:`, err: "invalid character"},
		{name: "unknown key kind", in: table(`, "key": [{"name": "k", "kind": "uuid"}]`), err: `unknown kind "uuid"`},
		{name: "key without name", in: table(`, "key": [{"kind": "string"}]`), err: "no name"},
		{name: "regions from a java bucket key", in: table(`, "key": [{"name": "b", "kind": "java_bucket", "buckets": 4, "from": "id", "rule": "floormod"}, {"name": "id", "kind": "string"}], "splits": {"regions": 2}`), splits: []string{"2"}},
		{name: "java bucket without rule", in: table(`, "key": [{"name": "b", "kind": "java_bucket", "buckets": 4, "from": "id"}]`), err: `needs "rule"`},
		{name: "rule on an unknown kind", in: table(`, "key": [{"name": "k", "kind": "uuid", "rule": "mask"}]`), err: `unknown kind "uuid"`},
		{name: "java bucket with a bad rule", in: table(`, "key": [{"name": "b", "kind": "java_bucket", "buckets": 4, "from": "id", "rule": "modulo"}]`), err: "want mask, abs or floormod"},
		{name: "rule on bucket", in: table(`, "key": [{"name": "b", "kind": "bucket", "buckets": 4, "from": "id", "rule": "mask"}]`), err: "takes no rule"},
		{name: "bucket without from", in: table(`, "key": [{"name": "b", "kind": "bucket", "buckets": 4}]`), err: `needs "from"`},
		{name: "width on string", in: table(`, "key": [{"name": "s", "kind": "string", "width": 3}]`), err: "takes no width"},
		{name: "regions from a java partition", in: table(`, "key": [{"name": "p", "kind": "java_partition", "buckets": 4, "from": "id"}, {"name": "id", "kind": "java_long"}], "splits": {"regions": 2}`), splits: []string{"\x00\x00\x00\x00\x00\x00\x00\x02"}},
		{name: "java partition without from", in: table(`, "key": [{"name": "p", "kind": "java_partition", "buckets": 4}]`), err: `needs "from"`},
		{name: "java partition without buckets", in: table(`, "key": [{"name": "p", "kind": "java_partition", "from": "id"}]`), err: "partition count"},
		{name: "width on java long", in: table(`, "key": [{"name": "l", "kind": "java_long", "width": 8}]`), err: "takes no width"},
		{name: "from on java int", in: table(`, "key": [{"name": "i", "kind": "java_int", "from": "x"}]`), err: "takes no from"},
		{name: "delimiter on string", in: table(`, "key": [{"name": "s", "kind": "string", "delimiter": "_"}]`), err: "takes no delimiter"},
		{name: "trailing string not last", in: table(`, "key": [{"name": "u", "kind": "trailing_string"}, {"name": "s", "kind": "java_short"}]`), err: "must come last"},
		{name: "joined not last", in: table(`, "key": [{"kind": "joined", "delimiter": "_", "parts": [{"name": "a", "kind": "string"}, {"name": "b", "kind": "int"}]}, {"name": "s", "kind": "java_short"}]`), err: "must come last"},
		{name: "joined with a name", in: table(`, "key": [{"name": "pa", "kind": "joined", "delimiter": "_", "parts": [{"name": "a", "kind": "string"}]}]`), err: "takes no name"},
		{name: "joined without delimiter", in: table(`, "key": [{"kind": "joined", "parts": [{"name": "a", "kind": "string"}]}]`), err: `needs "delimiter"`},
		{name: "joined without parts", in: table(`, "key": [{"kind": "joined", "delimiter": "_"}]`), err: `needs "parts"`},
		{name: "joined with width", in: table(`, "key": [{"kind": "joined", "delimiter": "_", "width": 2, "parts": [{"name": "a", "kind": "string"}]}]`), err: "only delimiter and parts"},
		{name: "joined part of unknown kind", in: table(`, "key": [{"kind": "joined", "delimiter": "_", "parts": [{"name": "a", "kind": "long"}]}]`), err: `unknown kind "long"`},
		{name: "joined part without name", in: table(`, "key": [{"kind": "joined", "delimiter": "_", "parts": [{"kind": "int"}]}]`), err: "no name"},
		{name: "joined part with an unknown field", in: table(`, "key": [{"kind": "joined", "delimiter": "_", "parts": [{"name": "a", "kind": "int", "width": 2}]}]`), err: `unknown field "width"`},
		{name: "bad width", in: table(`, "key": [{"name": "d", "kind": "digits", "width": 0}]`), err: "key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := admin.ParseSchemaFile(strings.NewReader(tt.in))
			if tt.err != "" {
				if !errors.Is(err, admin.ErrInvalidSchema) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want ErrInvalidSchema mentioning %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strs(defs[0].SplitKeys()); !slices.Equal(got, tt.splits) && len(got)+len(tt.splits) > 0 {
				t.Errorf("split keys %q, want %q", got, tt.splits)
			}
		})
	}
}

func TestParseSchemaFileTooLarge(t *testing.T) {
	big := `{"tables": [{"name": "t", "families": [{"name": "cf"}]}]}` + strings.Repeat(" ", admin.MaxSchemaFileSize)
	if _, err := admin.ParseSchemaFile(strings.NewReader(big)); !errors.Is(err, admin.ErrInvalidSchema) {
		t.Errorf("error = %v, want ErrInvalidSchema", err)
	}
	if _, err := admin.LoadSchemaFile("testdata/missing.json"); err == nil {
		t.Error("missing file: no error")
	}
}

// TestSchemaFileJavaKeys cuts keys Java code writes (seed 003's partition key,
// seed 001's province_age row, Java short and int and a trailing uid) with
// tables declared in a schema file.
func TestSchemaFileJavaKeys(t *testing.T) {
	defs, err := admin.LoadSchemaFile("testdata/javakeys.json")
	if err != nil {
		t.Fatal(err)
	}
	// calcSplitKeys of seed 003's PartitionRowKeyManager with 10 partitions.
	splits := defs[0].SplitKeys()
	if len(splits) != 9 || string(splits[0]) != "\x00\x00\x00\x00\x00\x00\x00\x01" || string(splits[8]) != "\x00\x00\x00\x00\x00\x00\x00\x09" {
		t.Errorf("split keys %q", splits)
	}
	tests := []struct {
		table int
		key   string
		want  string
	}{
		// Bytes.add(Bytes.toBytes(12345L % 10), Bytes.toBytes(12345L))
		{0, "\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x30\x39", `partition="\x00\x00\x00\x00\x00\x00\x00\x05" id="\x00\x00\x00\x00\x00\x0009"`},
		{1, "辽宁省_20", `province="\xE8\xBE\xBD\xE5\xAE\x81\xE7\x9C\x81_" age="20"`},
		{2, "\xff\xff\x00\x01\x34\x5bu-42", `shard="\xFF\xFF" day="\x00\x014[" uid="u-42"`},
	}
	for _, tt := range tests {
		parts, err := defs[tt.table].KeyParts([]byte(tt.key))
		if err != nil {
			t.Errorf("%s: KeyParts(%q): %v", defs[tt.table].Name(), tt.key, err)
			continue
		}
		got := make([]string, len(parts))
		for i, p := range parts {
			got[i] = p.String()
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s: KeyParts(%q) = %s, want %s", defs[tt.table].Name(), tt.key, strings.Join(got, " "), tt.want)
		}
	}
	if _, err := defs[1].KeyParts([]byte("辽宁省_020")); err == nil {
		t.Error("KeyParts accepted an age Java never writes (020)")
	}
}
