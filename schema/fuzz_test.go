package schema_test

import (
	"bytes"
	"testing"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// FuzzSMSDecodeRow feeds arbitrary keys and cell values to the SMS
// decoders: they return an error or a record that encodes back to the
// same key, and never panic.
func FuzzSMSDecodeRow(f *testing.F) {
	tbl, ix := mustSMS(f)
	var r Row
	if err := tbl.EncodeRow(&r, &benchSMS); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(r.Key), []byte{0xff})
	f.Add([]byte("8765432183x"), []byte{})
	f.Add([]byte("87654321831999999999999999999990000"), []byte{1, 2})
	f.Fuzz(func(t *testing.T, key, value []byte) {
		var out seeds.SMS
		cells := []Cell{{Family: "cf", Qualifier: "d", Value: value}, {Family: "cf", Qualifier: "a", Value: value}}
		if err := tbl.DecodeRow(key, cells, &out); err == nil {
			again, err := tbl.AppendKey(nil, &out)
			if err != nil {
				t.Fatalf("decoded %q into %+v, which does not encode: %v", key, out, err)
			}
			if !bytes.Equal(again, key) {
				t.Fatalf("decode/encode of %q gave %q", key, again)
			}
		}
		_, _ = tbl.KeyParts(key)
		_, _ = ix.KeyParts(key)
		var fromIndex seeds.SMS
		_ = ix.DecodeEntry(key, []Cell{{Family: "cf", Qualifier: "row", Value: value}}, &fromIndex)
	})
}

// FuzzParseTableName: parsing never panics, and a parsed name formats back
// to a string that parses to the same name.
func FuzzParseTableName(f *testing.F) {
	for _, s := range []string{"sms", "ns:t", ":", "a:b:c", "-x", "hbase:meta", "zookeeper", "t\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseTableName(s)
		if err != nil {
			return
		}
		back, err := ParseTableName(n.String())
		if err != nil || back != n {
			t.Fatalf("ParseTableName(%q) = %+v, String %q parses to %+v, %v", s, n, n.String(), back, err)
		}
	})
}

// FuzzParseFamily: arbitrary attribute values give a valid family or an
// error, never a panic; a valid family survives Attributes.
func FuzzParseFamily(f *testing.F) {
	f.Add("cf", "3", "SNAPPY", "FOREVER", "65536", "true")
	f.Add("x", "0", "gzip", "-1", "1", "yes")
	f.Fuzz(func(t *testing.T, name, versions, compression, ttl, blocksize, inMemory string) {
		fam, err := ParseFamily(name, map[string]string{
			"VERSIONS": versions, "COMPRESSION": compression, "TTL": ttl, "BLOCKSIZE": blocksize, "IN_MEMORY": inMemory,
		})
		if err != nil {
			return
		}
		back, err := ParseFamily(name, fam.Attributes())
		if err != nil || fam.Diff(back) != nil {
			t.Fatalf("family %+v does not survive its attributes: %v %v", fam, err, fam.Diff(back))
		}
	})
}
