package schema_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

func ExampleSMSTable() {
	tbl, err := seeds.SMSTable()
	if err != nil {
		panic(err)
	}
	msg := seeds.SMS{
		Mobile:  "13812345678",
		SentAt:  time.Date(2017, 8, 22, 6, 22, 34, 567e6, time.UTC),
		Account: "acme",
		Content: "hello",
	}
	var row schema.Row
	if err := tbl.EncodeRow(&row, &msg); err != nil {
		panic(err)
	}
	fmt.Printf("data  %s\n", row.Key)

	ix, _ := tbl.Index(seeds.SMSIndexTableName)
	var entry schema.Row
	if err := ix.EncodeEntry(&entry, &msg); err != nil {
		panic(err)
	}
	fmt.Printf("index %s\n", entry.Key)

	var back seeds.SMS
	if err := tbl.DecodeRow(row.Key, row.Cells, &back); err != nil {
		panic(err)
	}
	fmt.Println(back.Mobile, back.SentAt.Format(time.RFC3339Nano), back.Content)
	fmt.Printf("%d regions, first split %s\n", len(tbl.SplitKeys())+1, tbl.SplitKeys()[0])
	// Output:
	// data  8765432183192233705334718212400000
	// index 52017082253bce4f1dfa0fe8e138123456781737254320000
	// 13812345678 2017-08-22T06:22:34.567Z hello
	// 20 regions, first split 05
}

func ExampleFamily_Attributes() {
	f := seeds.TestTableFamily() // seed 001's CF1
	for _, a := range f.SortedAttributes() {
		fmt.Printf("%s => '%s'\n", a.Name, a.Value)
	}
	// Output:
	// BLOOMFILTER => 'ROW'
	// VERSIONS => '3'
	// MIN_VERSIONS => '0'
	// COMPRESSION => 'SNAPPY'
	// TTL => '3600'
	// BLOCKSIZE => '65536'
	// IN_MEMORY => 'false'
	// BLOCKCACHE => 'true'
	// DATA_BLOCK_ENCODING => 'NONE'
}

func ExampleFamily_Diff() {
	declared := schema.Family{Name: "cf", Versions: 3, Compression: schema.CompressionSnappy}
	// The attributes HBase describes for the live family.
	described, err := schema.ParseFamily("cf", map[string]string{
		"BLOOMFILTER": "ROW", "VERSIONS": "1", "COMPRESSION": "SNAPPY", "TTL": "FOREVER",
		"BLOCKSIZE": "65536", "IN_MEMORY": "false", "BLOCKCACHE": "true",
		"KEEP_DELETED_CELLS": "FALSE",
	})
	if err != nil {
		panic(err)
	}
	for _, d := range declared.Diff(described) {
		fmt.Printf("%s: declared %s, HBase has %s\n", d.Option, d.Declared, d.Actual)
	}
	// Output:
	// VERSIONS: declared 3, HBase has 1
}

func ExampleNewFamily() {
	_, err := schema.NewFamily("cf", schema.WithVersions(0))
	var se *schema.Error
	if errors.As(err, &se) {
		fmt.Println(se.Family, se.Field, se.Reason)
	}
	fmt.Println(errors.Is(err, schema.ErrInvalidOption))

	_, err = schema.NewFamily("cf", schema.WithCompression("GZIP"))
	fmt.Println(err)
	// Output:
	// cf VERSIONS must be between 1 and 2147483647
	// true
	// schema: family "cf": COMPRESSION: unknown compression (want NONE, SNAPPY, GZ, LZ4, ZSTD, LZO, BZIP2, LZMA or BROTLI) (got "GZIP")
}

func ExampleParseTableName() {
	for _, s := range []string{"sms", "hbkit:sms_index", "default:sms", "bad:-name"} {
		n, err := schema.ParseTableName(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s -> namespace %s, qualifier %s, full %s\n", s, n.Namespace, n.Qualifier, n.FullName())
	}
	// Output:
	// sms -> namespace default, qualifier sms, full default:sms
	// hbkit:sms_index -> namespace hbkit, qualifier sms_index, full hbkit:sms_index
	// default:sms -> namespace default, qualifier sms, full default:sms
	// schema: table "bad:-name": qualifier: must not start with '.' or '-' (got "-name")
}

func ExampleBuiltin() {
	fmt.Println(seeds.BuiltinNames())
	d, err := seeds.Builtin("sms_index")
	if err != nil {
		panic(err)
	}
	for i, s := range d.KeySegments() {
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Printf("%s(%d)", s.Name, s.Width)
	}
	fmt.Println()
	fmt.Println(keys.ShellSplits(d.SplitKeys()))

	_, err = seeds.Builtin("nope")
	fmt.Println(errors.Is(err, schema.ErrUnknownSchema))
	// Output:
	// [TestTable TestTable_province_age customer_order log_data_bucketed log_data_by_host log_data_md5 log_data_wide order_md5 sms sms_index]
	// bucket(1) day(8) account_md5(16) mobile(11) time(9) unique(4)
	// ['1', '2', '3', '4', '5', '6', '7', '8', '9']
	// true
}

// Person is the record of the New example.
type Person struct {
	ID    string
	Name  string
	Email string
}

func ExampleNew() {
	key, err := keys.NewLayout(
		keys.MD5Hex("id_md5", 2, func(p *Person) string { return p.ID }),
		keys.String("id", func(p *Person) string { return p.ID }, func(p *Person, v string) { p.ID = v }),
	)
	if err != nil {
		panic(err)
	}
	// The index key ends with the id, so each person has an entry of its
	// own even when two share an email.
	byEmail, err := keys.NewLayout(
		keys.String("email", func(p *Person) string { return p.Email }, func(p *Person, v string) { p.Email = v }),
		keys.String("id", func(p *Person) string { return p.ID }, func(p *Person, v string) { p.ID = v }),
	)
	if err != nil {
		panic(err)
	}
	people, err := schema.New(schema.Spec[Person]{
		Name:     "crm:people",
		Families: []schema.Family{{Name: "p", Compression: schema.CompressionZSTD}},
		Key:      key,
		Splits:   schema.Splits{Regions: 4},
		Columns: []schema.Column[Person]{
			schema.StringColumn("name", "p", "n", func(p *Person) string { return p.Name }, func(p *Person, v string) { p.Name = v }),
			schema.StringColumn("email", "p", "e", func(p *Person) string { return p.Email }, func(p *Person, v string) { p.Email = v }),
		},
		Indexes: []schema.IndexSpec[Person]{{
			Name: "crm:people_by_email", Families: []schema.Family{{Name: "i"}},
			Key: byEmail, RowKeyQualifier: "row",
		}},
	})
	if err != nil {
		panic(err)
	}
	var row schema.Row
	ada := Person{ID: "p1", Name: "Ada", Email: "ada@example.com"}
	if err := people.EncodeRow(&row, &ada); err != nil {
		panic(err)
	}
	parts, _ := people.KeyParts(row.Key)
	fmt.Println(people.Name(), parts, schema.QuoteKeys(people.SplitKeys()))
	for _, c := range row.Cells {
		fmt.Printf("%s:%s=%s\n", c.Family, c.Qualifier, c.Value)
	}

	// An index on a field the table does not have is refused.
	_, err = schema.New(schema.Spec[Person]{
		Name: "crm:people", Families: []schema.Family{{Name: "p"}}, Key: key,
		Indexes: []schema.IndexSpec[Person]{{Name: "crm:people_by_email", Families: []schema.Family{{Name: "i"}}, Key: byEmail}},
	})
	fmt.Println(errors.Is(err, schema.ErrUnknownField), err)
	// Output:
	// crm:people [id_md5="ec" id="p1\x00\x01"] ["4" "8" "c"]
	// p:n=Ada
	// p:e=ada@example.com
	// true schema: table "crm:people": index crm:people_by_email: key segment email: not a field of the table and not mapped to one in From
}

func ExampleShellCreate() {
	tbl, err := seeds.TestTable()
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.ShellCreate(tbl))
	// Output:
	// create 'TestTable', {NAME => 'CF1', BLOOMFILTER => 'ROW', VERSIONS => '3', MIN_VERSIONS => '0', COMPRESSION => 'SNAPPY', TTL => '3600', BLOCKSIZE => '65536', IN_MEMORY => 'false', BLOCKCACHE => 'true', DATA_BLOCK_ENCODING => 'NONE'}, {SPLITS => ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f']}
}

func ExampleDiffFamilies() {
	tbl, err := seeds.SMSTable()
	if err != nil {
		panic(err)
	}
	// What HBase describes for the live table: cf lost its compression and
	// someone added a family.
	live := map[string]map[string]string{
		"cf": {"BLOOMFILTER": "ROW", "VERSIONS": "1", "COMPRESSION": "NONE", "TTL": "2147483647",
			"BLOCKSIZE": "65536", "IN_MEMORY": "false", "BLOCKCACHE": "true", "DATA_BLOCK_ENCODING": "NONE",
			"KEEP_DELETED_CELLS": "FALSE", "REPLICATION_SCOPE": "0", "MIN_VERSIONS": "0"},
		"tmp": {},
	}
	drift, err := schema.DiffFamilies(tbl.Families(), live)
	if err != nil {
		panic(err)
	}
	for _, d := range drift {
		fmt.Printf("%s missing=%t extra=%t %+v\n", d.Family, d.Missing, d.Extra, d.Options)
	}
	// Output:
	// cf missing=false extra=false [{Option:COMPRESSION Declared:SNAPPY Actual:NONE}]
	// tmp missing=false extra=true []
}
