package hbase

import (
	"bytes"
	"maps"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func adminPairs(ps []*pb.BytesBytesPair) [][2]string {
	var out [][2]string
	for _, p := range ps {
		out = append(out, [2]string{string(p.GetFirst()), string(p.GetSecond())})
	}
	return out
}

func TestTableSchema(t *testing.T) {
	tests := []struct {
		name      string
		desc      TableDescriptor
		wantNS    string
		wantQual  string
		wantTable [][2]string
		wantFams  []string
		wantAttrs map[string][][2]string
	}{
		{
			name: "seed-001 options, default namespace spelled out",
			desc: TableDescriptor{Name: "calls", Families: []FamilyDescriptor{{Name: "d", Attributes: map[string]string{
				"VERSIONS": "3", "BLOOMFILTER": "ROW", "COMPRESSION": "SNAPPY", "TTL": "3600",
				"BLOCKSIZE": "65536", "IN_MEMORY": "false", "BLOCKCACHE": "true",
			}}}},
			wantNS: "default", wantQual: "calls",
			wantFams: []string{"d"},
			wantAttrs: map[string][][2]string{"d": {
				{"BLOCKCACHE", "true"}, {"BLOCKSIZE", "65536"}, {"BLOOMFILTER", "ROW"}, {"COMPRESSION", "SNAPPY"},
				{"IN_MEMORY", "false"}, {"TTL", "3600"}, {"VERSIONS", "3"},
			}},
		},
		{
			name: "namespace, families sorted, values spelled as Java does",
			desc: TableDescriptor{
				Name:       "ns1:t.x-y",
				Attributes: map[string]string{"MAX_FILESIZE": "1048576", "DURABILITY": "ASYNC_WAL"},
				Families: []FamilyDescriptor{
					{Name: "z", Attributes: map[string]string{"BLOOMFILTER": "rowcol", "IN_MEMORY": "TRUE", "DATA_BLOCK_ENCODING": "fast_diff"}},
					{Name: "a"},
				},
			},
			wantNS: "ns1", wantQual: "t.x-y",
			wantTable: [][2]string{{"DURABILITY", "ASYNC_WAL"}, {"MAX_FILESIZE", "1048576"}},
			wantFams:  []string{"a", "z"},
			wantAttrs: map[string][][2]string{
				"a": nil,
				"z": {{"BLOOMFILTER", "ROWCOL"}, {"DATA_BLOCK_ENCODING", "FAST_DIFF"}, {"IN_MEMORY", "true"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.desc.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			tn, err := ParseTableName(tt.desc.Name)
			if err != nil {
				t.Fatal(err)
			}
			s := tableSchema(tn, tt.desc)
			if _, err := proto.Marshal(s); err != nil {
				t.Fatalf("marshal: %v (a required field is missing)", err)
			}
			if got := string(s.GetTableName().GetNamespace()); got != tt.wantNS {
				t.Errorf("namespace = %q, want %q", got, tt.wantNS)
			}
			if got := string(s.GetTableName().GetQualifier()); got != tt.wantQual {
				t.Errorf("qualifier = %q, want %q", got, tt.wantQual)
			}
			if got := adminPairs(s.GetAttributes()); !reflect.DeepEqual(got, tt.wantTable) {
				t.Errorf("table attributes = %q, want %q", got, tt.wantTable)
			}
			var fams []string
			for _, f := range s.GetColumnFamilies() {
				fams = append(fams, string(f.GetName()))
				if got, want := adminPairs(f.GetAttributes()), tt.wantAttrs[string(f.GetName())]; !reflect.DeepEqual(got, want) {
					t.Errorf("family %s attributes = %q, want %q", f.GetName(), got, want)
				}
			}
			if !reflect.DeepEqual(fams, tt.wantFams) {
				t.Errorf("families = %q, want %q", fams, tt.wantFams)
			}
		})
	}
}

func TestTableSchemaDoesNotAliasInput(t *testing.T) {
	desc := TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "b"}, {Name: "a"}}}
	tableSchema(TableName{Namespace: "default", Qualifier: "t"}, desc)
	if desc.Families[0].Name != "b" {
		t.Errorf("tableSchema reordered the caller's families: %+v", desc.Families)
	}
}

func TestCanonicalFamilyValue(t *testing.T) {
	tests := []struct {
		name, key, value, want string
	}{
		{"bloom upper-cased", "BLOOMFILTER", "row", "ROW"},
		{"compression upper-cased", "COMPRESSION", "snappy", "SNAPPY"},
		{"encoding upper-cased", "DATA_BLOCK_ENCODING", "Prefix", "PREFIX"},
		{"keep deleted upper-cased", "KEEP_DELETED_CELLS", "ttl", "TTL"},
		{"boolean lower-cased", "BLOCKCACHE", "TRUE", "true"},
		{"in memory lower-cased", "IN_MEMORY", "False", "false"},
		{"non-boolean boolean key kept", "IN_MEMORY", "yes", "yes"},
		{"number kept", "VERSIONS", "3", "3"},
		{"unknown key kept", "my.custom.key", "MiXeD", "MiXeD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := canonicalFamilyValue(tt.key, tt.value); got != tt.want {
				t.Errorf("canonicalFamilyValue(%q, %q) = %q, want %q", tt.key, tt.value, got, tt.want)
			}
		})
	}
}

func adminBBP(k, v string) *pb.BytesBytesPair {
	return &pb.BytesBytesPair{First: []byte(k), Second: []byte(v)}
}

func adminNSP(k, v string) *pb.NameStringPair {
	return &pb.NameStringPair{Name: proto.String(k), Value: proto.String(v)}
}

func TestDescriptorOf(t *testing.T) {
	tests := []struct {
		name string
		in   *pb.TableSchema
		want TableDescriptor
	}{
		{
			name: "default namespace dropped from the name, families sorted",
			in: &pb.TableSchema{
				TableName:  &pb.TableName{Namespace: []byte("default"), Qualifier: []byte("t1")},
				Attributes: []*pb.BytesBytesPair{adminBBP("IS_META", "false")},
				ColumnFamilies: []*pb.ColumnFamilySchema{
					{Name: []byte("z"), Attributes: []*pb.BytesBytesPair{adminBBP("VERSIONS", "3")}},
					{Name: []byte("a")},
				},
			},
			want: TableDescriptor{
				Name:       "t1",
				Attributes: map[string]string{"IS_META": "false"},
				Families: []FamilyDescriptor{
					{Name: "a", Attributes: map[string]string{}},
					{Name: "z", Attributes: map[string]string{"VERSIONS": "3"}},
				},
			},
		},
		{
			name: "options reported as configuration are merged, attributes win",
			in: &pb.TableSchema{
				TableName:     &pb.TableName{Namespace: []byte("ns"), Qualifier: []byte("t")},
				Configuration: []*pb.NameStringPair{adminNSP("hbase.hregion.max.filesize", "1024")},
				ColumnFamilies: []*pb.ColumnFamilySchema{{
					Name:          []byte("cf"),
					Attributes:    []*pb.BytesBytesPair{adminBBP("VERSIONS", "3"), adminBBP("COMPRESSION", "SNAPPY")},
					Configuration: []*pb.NameStringPair{adminNSP("TTL", "3600"), adminNSP("VERSIONS", "7"), adminNSP("hbase.hstore.blockingStoreFiles", "20")},
				}},
			},
			want: TableDescriptor{
				Name:       "ns:t",
				Attributes: map[string]string{"hbase.hregion.max.filesize": "1024"},
				Families: []FamilyDescriptor{{Name: "cf", Attributes: map[string]string{
					"VERSIONS": "3", "COMPRESSION": "SNAPPY", "TTL": "3600", "hbase.hstore.blockingStoreFiles": "20",
				}}},
			},
		},
		{
			name: "empty schema",
			in:   &pb.TableSchema{},
			want: TableDescriptor{Name: ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := descriptorOf(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("descriptorOf = %+v,\nwant %+v", got, tt.want)
			}
		})
	}
}

// A descriptor sent with CreateTable comes back from DescribeTable with
// the same options (the server adds its defaults on top).
func TestDescriptorRoundTrip(t *testing.T) {
	desc := TableDescriptor{
		Name:       "ns:t",
		Attributes: map[string]string{"MAX_FILESIZE": "1073741824"},
		Families: []FamilyDescriptor{
			{Name: "d", Attributes: map[string]string{"VERSIONS": "3", "BLOOMFILTER": "ROW", "TTL": "3600"}},
			{Name: "c", Attributes: map[string]string{"IN_MEMORY": "true"}},
		},
	}
	tn, _ := ParseTableName(desc.Name)
	wire, err := proto.Marshal(tableSchema(tn, desc))
	if err != nil {
		t.Fatal(err)
	}
	var s pb.TableSchema
	if err := proto.Unmarshal(wire, &s); err != nil {
		t.Fatal(err)
	}
	got := descriptorOf(&s)
	if got.Name != desc.Name || !maps.Equal(got.Attributes, desc.Attributes) || len(got.Families) != 2 {
		t.Fatalf("round trip = %+v, want %+v", got, desc)
	}
	for _, f := range desc.Families {
		g, ok := got.Family(f.Name)
		if !ok || !maps.Equal(g.Attributes, f.Attributes) {
			t.Errorf("family %s = %+v, %v; want %+v", f.Name, g, ok, f)
		}
	}
}

func TestSortedSplitKeys(t *testing.T) {
	in := [][]byte{[]byte("m"), {0xff}, []byte("a"), {0x00, 0x01}}
	got := sortedSplitKeys(in)
	want := [][]byte{{0x00, 0x01}, []byte("a"), []byte("m"), {0xff}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sortedSplitKeys = %x, want %x", got, want)
	}
	got[0][0] = 0x7f
	if !bytes.Equal(in[3], []byte{0x00, 0x01}) {
		t.Errorf("sortedSplitKeys aliases its input: %x", in[3])
	}
	if sortedSplitKeys(nil) != nil {
		t.Errorf("sortedSplitKeys(nil) != nil")
	}
}

func TestTableNameWire(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		ns, q  string
		canon  string
		wantNS string
	}{
		{"default namespace", "t1", "default", "t1", "t1", "default"},
		{"explicit default", "default:t1", "default", "t1", "t1", "default"},
		{"namespaced", "hbkit_it_ns:tbl", "hbkit_it_ns", "tbl", "hbkit_it_ns:tbl", "hbkit_it_ns"},
		{"system", "hbase:meta", "hbase", "meta", "hbase:meta", "hbase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tn, err := ParseTableName(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			w := pbTableName(tn)
			if string(w.GetNamespace()) != tt.wantNS || string(w.GetQualifier()) != tt.q {
				t.Errorf("pbTableName(%q) = %s:%s, want %s:%s", tt.in, w.GetNamespace(), w.GetQualifier(), tt.wantNS, tt.q)
			}
			if back := tableNameOf(w); back != tn || back.String() != tt.canon {
				t.Errorf("tableNameOf = %+v (%s), want %+v (%s)", back, back, tn, tt.canon)
			}
		})
	}
	if got := tableNameOf(&pb.TableName{Qualifier: []byte("x")}); got.Namespace != DefaultNamespace {
		t.Errorf("tableNameOf without namespace = %+v, want the default namespace", got)
	}
}

// FuzzDescriptorOf feeds arbitrary GetTableDescriptors answers to the
// converter: it must never panic, and what it reports must survive a trip
// back to the wire.
func FuzzDescriptorOf(f *testing.F) {
	seed, _ := proto.Marshal(&pb.GetTableDescriptorsResponse{TableSchema: []*pb.TableSchema{{
		TableName:      &pb.TableName{Namespace: []byte("ns"), Qualifier: []byte("t")},
		Attributes:     []*pb.BytesBytesPair{adminBBP("IS_META", "false")},
		ColumnFamilies: []*pb.ColumnFamilySchema{{Name: []byte("cf"), Attributes: []*pb.BytesBytesPair{adminBBP("VERSIONS", "3")}, Configuration: []*pb.NameStringPair{adminNSP("TTL", "1")}}},
	}}})
	f.Add(seed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var resp pb.GetTableDescriptorsResponse
		if err := proto.Unmarshal(b, &resp); err != nil {
			return
		}
		for _, s := range resp.GetTableSchema() {
			d := descriptorOf(s)
			for i := 1; i < len(d.Families); i++ {
				if d.Families[i-1].Name > d.Families[i].Name {
					t.Fatalf("families not sorted: %q", d.Families)
				}
			}
			tn := tableNameOf(s.GetTableName())
			if _, err := proto.Marshal(tableSchema(tn, d)); err != nil {
				// Only a missing required field could fail, and
				// tableSchema sets every one.
				t.Fatalf("re-encoding %+v: %v", d, err)
			}
		}
	})
}

func seedDescriptor() TableDescriptor {
	return TableDescriptor{Name: "crm:calls", Families: []FamilyDescriptor{
		{Name: "d", Attributes: map[string]string{
			"BLOOMFILTER": "ROW", "BLOCKSIZE": "65536", "VERSIONS": "3", "COMPRESSION": "SNAPPY",
			"BLOCKCACHE": "true", "IN_MEMORY": "false", "TTL": "3600",
		}},
		{Name: "m"},
	}}
}

func BenchmarkTableSchema(b *testing.B) {
	desc := seedDescriptor()
	tn, _ := ParseTableName(desc.Name)
	b.ReportAllocs()
	for b.Loop() {
		tableSchema(tn, desc)
	}
}

func BenchmarkDescriptorOf(b *testing.B) {
	desc := seedDescriptor()
	tn, _ := ParseTableName(desc.Name)
	s := tableSchema(tn, desc)
	b.ReportAllocs()
	for b.Loop() {
		descriptorOf(s)
	}
}
