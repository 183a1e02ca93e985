package hbase

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"github.com/hbkit/hbkit/internal/pb"
)

// Conversions between the public admin types (TableDescriptor,
// FamilyDescriptor, table names) and the MasterService protobuf messages
// (TableSchema, ColumnFamilySchema, TableName).

// pbTableName returns the wire form of a parsed table name; the namespace
// is always spelled out ("default" included), as the master expects.
func pbTableName(tn TableName) *pb.TableName {
	ns := tn.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return &pb.TableName{Namespace: []byte(ns), Qualifier: []byte(tn.Qualifier)}
}

// tableNameOf converts a wire table name back, without validating it (the
// master's names are valid by construction).
func tableNameOf(t *pb.TableName) TableName {
	ns := string(t.GetNamespace())
	if ns == "" {
		ns = DefaultNamespace
	}
	return TableName{Namespace: ns, Qualifier: string(t.GetQualifier())}
}

// canonicalFamilyValue spells a family attribute value the way the Java
// client sends it. Enum-valued options (BLOOMFILTER, COMPRESSION, ...) are
// sent as the constant's name, upper case; boolean options as
// Boolean.toString, lower case. The master stores the string it receives,
// so sending "row" would make DescribeTable report "row". Other values are
// sent unchanged.
func canonicalFamilyValue(key, value string) string {
	switch key {
	case "BLOOMFILTER", "COMPRESSION", "COMPRESSION_COMPACT", "COMPRESSION_COMPACT_MAJOR",
		"COMPRESSION_COMPACT_MINOR", "DATA_BLOCK_ENCODING", "INDEX_BLOCK_ENCODING",
		"KEEP_DELETED_CELLS":
		return strings.ToUpper(value)
	case "IN_MEMORY", "BLOCKCACHE", "CACHE_DATA_ON_WRITE", "CACHE_INDEX_ON_WRITE",
		"CACHE_BLOOMS_ON_WRITE", "EVICT_BLOCKS_ON_CLOSE", "PREFETCH_BLOCKS_ON_OPEN",
		"NEW_VERSION_BEHAVIOR", "IS_MOB":
		if strings.EqualFold(value, "true") || strings.EqualFold(value, "false") {
			return strings.ToLower(value)
		}
	}
	return value
}

// attributePairs turns a string map into BytesBytesPairs sorted by key,
// so that requests are deterministic. canon, if not nil, rewrites values.
func attributePairs(m map[string]string, canon func(k, v string) string) []*pb.BytesBytesPair {
	if len(m) == 0 {
		return nil
	}
	out := make([]*pb.BytesBytesPair, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if canon != nil {
			v = canon(k, v)
		}
		out = append(out, &pb.BytesBytesPair{First: []byte(k), Second: []byte(v)})
	}
	return out
}

// tableSchema builds the TableSchema of a validated descriptor for
// CreateTable and ModifyTable. Family and table attributes go out as
// BytesBytesPair attributes (name → value), as the Java client sends them;
// families are sent in name order.
func tableSchema(tn TableName, d TableDescriptor) *pb.TableSchema {
	s := &pb.TableSchema{
		TableName:  pbTableName(tn),
		Attributes: attributePairs(d.Attributes, nil),
	}
	fams := slices.Clone(d.Families)
	slices.SortFunc(fams, func(a, b FamilyDescriptor) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range fams {
		s.ColumnFamilies = append(s.ColumnFamilies, &pb.ColumnFamilySchema{
			Name:       []byte(f.Name),
			Attributes: attributePairs(f.Attributes, canonicalFamilyValue),
		})
	}
	return s
}

// collectAttributes merges a schema's attributes and configuration into
// one map keyed by HBase's names. Attributes win over configuration
// entries of the same name: HBase reads both through one layered
// configuration, with the descriptor's values on top. It returns nil when
// there is nothing.
func collectAttributes(attrs []*pb.BytesBytesPair, conf []*pb.NameStringPair) map[string]string {
	if len(attrs) == 0 && len(conf) == 0 {
		return nil
	}
	m := make(map[string]string, len(attrs)+len(conf))
	for _, p := range attrs {
		m[string(p.GetFirst())] = string(p.GetSecond())
	}
	for _, p := range conf {
		if _, ok := m[p.GetName()]; !ok {
			m[p.GetName()] = p.GetValue()
		}
	}
	return m
}

// descriptorOf converts a TableSchema reported by the master. Families
// come sorted by name; each family's Attributes hold every option the
// server reports, under HBase's names (VERSIONS, TTL, BLOOMFILTER, ...),
// whether the server sent it as an attribute or as configuration.
func descriptorOf(s *pb.TableSchema) TableDescriptor {
	d := TableDescriptor{
		Name:       tableNameOf(s.GetTableName()).String(),
		Attributes: collectAttributes(s.GetAttributes(), s.GetConfiguration()),
	}
	for _, f := range s.GetColumnFamilies() {
		attrs := collectAttributes(f.GetAttributes(), f.GetConfiguration())
		if attrs == nil {
			attrs = map[string]string{}
		}
		d.Families = append(d.Families, FamilyDescriptor{Name: string(f.GetName()), Attributes: attrs})
	}
	slices.SortFunc(d.Families, func(a, b FamilyDescriptor) int {
		return bytes.Compare([]byte(a.Name), []byte(b.Name))
	})
	return d
}

// sortedSplitKeys returns copies of validated split keys in unsigned byte
// order: the master builds region boundaries in the order it receives.
func sortedSplitKeys(keys [][]byte) [][]byte {
	if len(keys) == 0 {
		return nil
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = bytes.Clone(k)
	}
	slices.SortFunc(out, bytes.Compare)
	return out
}
