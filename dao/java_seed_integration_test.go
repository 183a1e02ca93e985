//go:build integration

package dao_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Rows that HBase's own Java client writes with keys built by the seeds'
// Java code (tools/javaclient/SeedKeysWriter.java), read and decoded
// through hbkit schemas declared for them:
//
//	HBKIT_ZK=127.0.0.1:2181 go test -tags integration -run JavaSeedKeys -v ./dao/
//
// The first run builds tools/javaclient with Maven, resolving hbase-client
// from Maven Central; later runs reuse the cached build (run.sh).

// The tables are called javaseed_… on the shared HBase.
var javaSeedNames = conformance.NameGenerator("javaseed")

// seedPartitions is the partition count of seed 003's test
// (rkManager.setPartition(10)).
const seedPartitions = 10

// seedRow is a row of seed 003's hash_split_table or partition_split_table,
// with the columns SeedKeysWriter gives it.
type seedRow struct {
	ID        int64
	Partition int64 // decoded from a partition key; derived from ID when encoding
	Name      string
	Score     int64
	Level     int32
	Rank      int16
}

// provinceAge is the key of a row of seed 001's inverted index table2.
type provinceAge struct {
	Province string
	Age      int64
}

// seedColumns are the cells of family info, as Bytes.toBytes writes them.
func seedColumns() []schema.Column[seedRow] {
	return []schema.Column[seedRow]{
		schema.StringColumn("name", "info", "name", func(r *seedRow) string { return r.Name }, func(r *seedRow, v string) { r.Name = v }),
		schema.Int64Column("score", "info", "score", func(r *seedRow) int64 { return r.Score }, func(r *seedRow, v int64) { r.Score = v }),
		schema.Int32Column("level", "info", "level", func(r *seedRow) int32 { return r.Level }, func(r *seedRow, v int32) { r.Level = v }),
		schema.Int16Column("rank", "info", "rank", func(r *seedRow) int16 { return r.Rank }, func(r *seedRow, v int16) { r.Rank = v }),
	}
}

func seedID(r *seedRow) int64       { return r.ID }
func setSeedID(r *seedRow, v int64) { r.ID = v }

// hashSplitTable declares seed 003's hash key,
// Bytes.add(MD5Hash.getMD5AsHex(Bytes.toBytes(id)).substring(0, 8).getBytes(), Bytes.toBytes(id)):
// the first 8 hex digits of the MD5 of the id's 8 Java bytes, then those
// bytes. Pre-split on the hex digits, as the seed's sampled split keys are.
func hashSplitTable(t testing.TB) *schema.Table[seedRow] {
	t.Helper()
	key, err := keys.NewLayout(
		keys.MD5Hex("hash", 8, func(r *seedRow) string { return string(keys.AppendJavaLong(nil, r.ID)) }),
		keys.JavaLong("id", seedID, setSeedID),
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[seedRow]{
		Name:     "hash_split_table",
		Families: []schema.Family{{Name: "info", Versions: 1}},
		Key:      key,
		Splits:   schema.Splits{Regions: 4},
		Columns:  seedColumns(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// partitionSplitTable declares seed 003's PartitionRowKeyManager key,
// Bytes.add(Bytes.toBytes(id % partition), Bytes.toBytes(id)), pre-split
// as its calcSplitKeys: Bytes.toBytes((long) i) for i = 1 .. partition-1.
func partitionSplitTable(t testing.TB) *schema.Table[seedRow] {
	t.Helper()
	key, err := keys.NewLayout(
		keys.JavaPartition("partition", seedPartitions, seedID, func(r *seedRow, v int64) { r.Partition = v }),
		keys.JavaLong("id", seedID, setSeedID),
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[seedRow]{
		Name:     "partition_split_table",
		Families: []schema.Family{{Name: "info", Versions: 1}},
		Key:      key,
		Splits:   schema.Splits{Regions: seedPartitions},
		Columns:  seedColumns(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// table2 declares the row key of seed 001's inverted index, province + "_" +
// age. Its cells (family user, one column per uid) have no column of
// their own here: the test reads them through the client.
func table2(t testing.TB) *schema.Table[provinceAge] {
	t.Helper()
	key, err := keys.NewLayout(keys.Joined("_",
		keys.TextString("province", func(r *provinceAge) string { return r.Province }, func(r *provinceAge, v string) { r.Province = v }),
		keys.TextInt("age", func(r *provinceAge) int64 { return r.Age }, func(r *provinceAge, v int64) { r.Age = v }),
	)...)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[provinceAge]{
		Name:     "table2",
		Families: []schema.Family{{Name: "user"}},
		Key:      key,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// generatedRow is a row of seed 003's HashRowKeyGenerator: its key hashes
// the low 4 bytes of the id and of a clock (Millis) that the row does not
// hold, so a key is computed from both and decodes to the id alone.
type generatedRow struct {
	ID     int64
	Millis int64
	Name   string
}

// hashGeneratorTable declares HashRowKeyGenerator's key,
// Bytes.add(MD5Hash.getMD5AsHex(Bytes.add(lowU, lowT)).substring(0, 8).getBytes(), Bytes.toBytes(id))
// with lowU and lowT the last 4 bytes of Bytes.toBytes(id) and of
// Bytes.toBytes(time).
func hashGeneratorTable(t testing.TB) *schema.Table[generatedRow] {
	t.Helper()
	key, err := keys.NewLayout(
		keys.MD5Hex("hash", 8, func(r *generatedRow) string {
			low := keys.AppendJavaLong(nil, r.ID)[4:]
			return string(append(low, keys.AppendJavaLong(nil, r.Millis)[4:]...))
		}),
		keys.JavaLong("id", func(r *generatedRow) int64 { return r.ID }, func(r *generatedRow, v int64) { r.ID = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[generatedRow]{
		Name:     "hash_generator_table",
		Families: []schema.Family{{Name: "info", Versions: 1}},
		Key:      key,
		Columns: []schema.Column[generatedRow]{
			schema.StringColumn("name", "info", "name", func(r *generatedRow) string { return r.Name }, func(r *generatedRow, v string) { r.Name = v }),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// javaRow is one line of SeedKeysWriter's manifest.
type javaRow struct {
	Kind       string   `json:"kind"`
	Key        string   `json:"key"` // hex
	ID         int64    `json:"id"`
	Partitions int64    `json:"partitions"`
	Name       string   `json:"name"`
	Score      int64    `json:"score"`
	Level      int32    `json:"level"`
	Rank       int16    `json:"rank"`
	Province   string   `json:"province"`
	Age        int64    `json:"age"`
	UIDs       []string `json:"uids"`
	Value      string   `json:"value"` // hex
	Time       int64    `json:"time"`  // ms
}

func (j javaRow) key(t testing.TB) []byte {
	t.Helper()
	k, err := hex.DecodeString(j.Key)
	if err != nil {
		t.Fatalf("manifest key %q: %v", j.Key, err)
	}
	return k
}

// record is the row Java wrote, as the record hbkit should decode.
func (j javaRow) record() seedRow {
	r := seedRow{ID: j.ID, Name: j.Name, Score: j.Score, Level: j.Level, Rank: j.Rank}
	if j.Kind == "partition" {
		r.Partition = j.ID % j.Partitions
	}
	return r
}

// runSeedKeysWriter runs SeedKeysWriter on the three tables and returns
// its manifest, by kind.
func runSeedKeysWriter(t *testing.T, hash, partition, index, generator string, count int) map[string][]javaRow {
	t.Helper()
	for _, tool := range []string{"mvn", "java", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipped: building and running tools/javaclient (HBase's Java client) needs %s: %v", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("..", "tools", "javaclient", "run.sh"),
		"--class", "SeedKeysWriter", "--zk", javaSeedZK(),
		"--hash", hash, "--partition", partition, "--partitions", strconv.Itoa(seedPartitions),
		"--index", index, "--generator", generator, "--count", strconv.Itoa(count))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("SeedKeysWriter: %v\nstderr:\n%s", err, stderr.String())
	}
	out := map[string][]javaRow{}
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var r javaRow
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("SeedKeysWriter's manifest: %v", err)
		}
		out[r.Kind] = append(out[r.Kind], r)
	}
	return out
}

func javaSeedZK() string {
	if zk := os.Getenv("HBKIT_ZK"); zk != "" {
		return zk
	}
	return "127.0.0.1:2181"
}

// checkJavaRows checks a table of seed 003 that Java wrote: every row
// scanned through the schema decodes to the fields Java used, hbkit
// encodes those fields to Java's key byte for byte, and a Get by fields
// finds the row.
func checkJavaRows(t *testing.T, c *hbase.Client, r *dao.Repo[seedRow], rows []javaRow) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if len(rows) == 0 {
		t.Fatal("SeedKeysWriter wrote no rows")
	}
	want := map[int64]seedRow{}
	var javaKeys [][]byte
	for _, j := range rows {
		rec := j.record()
		want[j.ID] = rec
		javaKeys = append(javaKeys, j.key(t))
		k, err := r.Table().AppendKey(nil, &rec)
		if err != nil {
			t.Fatalf("AppendKey(id %d): %v", j.ID, err)
		}
		if !bytes.Equal(k, j.key(t)) {
			t.Errorf("id %d: hbkit's key %x, Java's %x", j.ID, k, j.key(t))
		}
		got, ok, err := r.Get(ctx, &seedRow{ID: j.ID})
		switch {
		case err != nil:
			t.Fatalf("Get(id %d): %v", j.ID, err)
		case !ok:
			t.Errorf("Get(id %d): no row", j.ID)
		case *got != rec:
			t.Errorf("Get(id %d) = %+v, want %+v", j.ID, *got, rec)
		}
	}
	raw := rawKeys(t, c, r.Name())
	slices.SortFunc(javaKeys, bytes.Compare)
	if !slices.EqualFunc(raw, javaKeys, bytes.Equal) {
		t.Fatalf("the table holds %d rows, Java wrote %d: %x vs %x", len(raw), len(javaKeys), raw, javaKeys)
	}
	n := 0
	for got, err := range r.Scan(ctx, dao.Query[seedRow]{}) {
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		if n < 2 {
			k, _ := r.Table().AppendKey(nil, got)
			t.Logf("%s row %x decodes to %+v", r.Table().Name(), k, *got)
		}
		n++
		if w, ok := want[got.ID]; !ok || *got != w {
			t.Errorf("Scan decoded %+v, Java wrote %+v (%v)", *got, w, ok)
		}
	}
	if n != len(rows) {
		t.Errorf("Scan read %d rows, Java wrote %d", n, len(rows))
	}
}

// Java writes seed 003's hash and partition keys and seed 001's
// province_age rows; hbkit reads and decodes every one through declared
// schemas, encodes the same keys from the same fields, and its own writes
// land on Java's rows.
func TestIntegrationJavaSeedKeys(t *testing.T) {
	c := itClient(t)
	hashTbl, partTbl, idxTbl := hashSplitTable(t), partitionSplitTable(t), table2(t)
	hashName := itTableNamed(t, c, hashTbl, javaSeedNames("hash"))
	partName := itTableNamed(t, c, partTbl, javaSeedNames("partition"))
	idxName := itTableNamed(t, c, idxTbl, javaSeedNames("table2"))
	genTbl := hashGeneratorTable(t)
	genName := itTableNamed(t, c, genTbl, javaSeedNames("generator"))
	manifest := runSeedKeysWriter(t, hashName, partName, idxName, genName, 60)

	hashRepo, err := dao.New(c, hashTbl, dao.WithTableNames(map[string]string{"hash_split_table": hashName}))
	if err != nil {
		t.Fatal(err)
	}
	partRepo, err := dao.New(c, partTbl, dao.WithTableNames(map[string]string{"partition_split_table": partName}))
	if err != nil {
		t.Fatal(err)
	}
	idxRepo, err := dao.New(c, idxTbl, dao.WithTableNames(map[string]string{"table2": idxName}))
	if err != nil {
		t.Fatal(err)
	}
	genRepo, err := dao.New(c, genTbl, dao.WithTableNames(map[string]string{"hash_generator_table": genName}))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("hash", func(t *testing.T) {
		rows := manifest["hash"]
		var neg, extremes int
		for _, j := range rows {
			if j.ID < 0 {
				neg++
			}
			if j.ID == -1<<63 || j.ID == 1<<63-1 {
				extremes++
			}
		}
		if neg == 0 || extremes != 2 {
			t.Fatalf("Java wrote %d negative ids and %d extremes, want some and 2", neg, extremes)
		}
		checkJavaRows(t, c, hashRepo, rows)
	})

	t.Run("partition", func(t *testing.T) {
		rows := manifest["partition"]
		checkJavaRows(t, c, partRepo, rows)
		// The rows of one partition, seed 003's region, by the partition's
		// value: the first field of any id in it.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for p := range int64(seedPartitions) {
			var want []int64
			for _, j := range rows {
				if j.ID%seedPartitions == p {
					want = append(want, j.ID)
				}
			}
			var got []int64
			for rec, err := range partRepo.Scan(ctx, dao.Prefix(&seedRow{ID: p}, 1)) {
				if err != nil {
					t.Fatalf("Scan(partition %d): %v", p, err)
				}
				if rec.Partition != p {
					t.Errorf("Scan(partition %d) decoded partition %d (id %d)", p, rec.Partition, rec.ID)
				}
				got = append(got, rec.ID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("partition %d: read ids %v, Java wrote %v", p, got, want)
			}
		}
	})

	t.Run("hash generator", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rows := manifest["hash_generator"]
		if len(rows) == 0 {
			t.Fatal("SeedKeysWriter wrote no generated rows")
		}
		want := map[int64]string{}
		for _, j := range rows {
			want[j.ID] = j.Name
			rec := generatedRow{ID: j.ID, Millis: j.Time, Name: j.Name}
			k, err := genTbl.AppendKey(nil, &rec)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(k, j.key(t)) {
				t.Errorf("id %d at %d: hbkit's key %x, Java's %x", j.ID, j.Time, k, j.key(t))
			}
			// The id and the time find the row; the id alone cannot.
			if got, ok, err := genRepo.Get(ctx, &generatedRow{ID: j.ID, Millis: j.Time}); err != nil || !ok || got.ID != j.ID || got.Name != j.Name {
				t.Errorf("Get(id %d at %d) = %+v, %v, %v", j.ID, j.Time, got, ok, err)
			}
		}
		if _, ok, err := genRepo.Get(ctx, &generatedRow{ID: rows[0].ID}); ok || err != nil {
			t.Errorf("Get(id %d) without the time = %v, %v: want no row", rows[0].ID, ok, err)
		}
		n := 0
		for got, err := range genRepo.Scan(ctx, dao.Query[generatedRow]{}) {
			if err != nil {
				t.Fatalf("Scan: %v", err)
			}
			n++
			if name, ok := want[got.ID]; !ok || got.Name != name || got.Millis != 0 {
				t.Errorf("Scan decoded %+v; Java wrote id %d named %q (%v)", *got, got.ID, name, ok)
			}
		}
		if n != len(rows) {
			t.Errorf("Scan read %d rows, Java wrote %d", n, len(rows))
		}
	})

	t.Run("hbkit writes on Java's rows", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, tc := range []struct {
			repo *dao.Repo[seedRow]
			rows []javaRow
		}{{hashRepo, manifest["hash"]}, {partRepo, manifest["partition"]}} {
			j := tc.rows[len(tc.rows)-1]
			rec := j.record()
			rec.Name, rec.Score = "written by hbkit", 42
			if err := tc.repo.Put(ctx, &rec); err != nil {
				t.Fatalf("Put(id %d): %v", j.ID, err)
			}
			res, err := c.Get(ctx, &hbase.Get{Table: tc.repo.Name(), Row: j.key(t)})
			if err != nil {
				t.Fatal(err)
			}
			if v := res.Value([]byte("info"), []byte("name")); string(v) != rec.Name {
				t.Errorf("%s: Java's row %x holds name %q after hbkit's Put, want %q", tc.repo.Name(), j.key(t), v, rec.Name)
			}
			if n := len(rawKeys(t, c, tc.repo.Name())); n != len(tc.rows) {
				t.Errorf("%s: %d rows after hbkit's Put of Java's row, want %d", tc.repo.Name(), n, len(tc.rows))
			}
		}
	})

	t.Run("province_age", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rows := manifest["province_age"]
		if len(rows) == 0 {
			t.Fatal("SeedKeysWriter wrote no index rows")
		}
		want := map[provinceAge][]string{}
		byProvince := map[string][]int64{}
		for _, j := range rows {
			pa := provinceAge{Province: j.Province, Age: j.Age}
			want[pa] = j.UIDs
			byProvince[j.Province] = append(byProvince[j.Province], j.Age)
			k, err := idxTbl.AppendKey(nil, &pa)
			if err != nil {
				t.Fatalf("AppendKey(%+v): %v", pa, err)
			}
			if !bytes.Equal(k, j.key(t)) {
				t.Errorf("%+v: hbkit's key %x, Java's %x", pa, k, j.key(t))
			}
			if got, ok, err := idxRepo.Get(ctx, &pa); err != nil || !ok || *got != pa {
				t.Errorf("Get(%+v) = %+v, %v, %v", pa, got, ok, err)
			}
			// The uids are the qualifiers of family user, each valued as Java wrote 1.
			res, err := c.Get(ctx, &hbase.Get{Table: idxName, Row: j.key(t)})
			if err != nil {
				t.Fatal(err)
			}
			var uids []string
			for _, cell := range res.Cells {
				if string(cell.Family) != "user" || hex.EncodeToString(cell.Value) != j.Value {
					t.Errorf("%+v: cell %s:%s = %x, want user:… = %s", pa, cell.Family, cell.Qualifier, cell.Value, j.Value)
				}
				uids = append(uids, string(cell.Qualifier))
			}
			wantUIDs := slices.Clone(j.UIDs)
			slices.Sort(wantUIDs) // HBase returns qualifiers in byte order
			if !slices.Equal(uids, wantUIDs) {
				t.Errorf("%+v: uids %v, Java wrote %v", pa, uids, wantUIDs)
			}
		}
		n := 0
		for got, err := range idxRepo.Scan(ctx, dao.Query[provinceAge]{}) {
			if err != nil {
				t.Fatalf("Scan: %v", err)
			}
			if n < 2 {
				k, _ := idxTbl.AppendKey(nil, got)
				t.Logf("table2 row %x (%q) decodes to %+v; its uids %q", k, k, *got, want[*got])
			}
			n++
			if _, ok := want[*got]; !ok {
				t.Errorf("Scan decoded %+v, which Java did not write", *got)
			}
		}
		if n != len(rows) {
			t.Errorf("Scan read %d rows, Java wrote %d", n, len(rows))
		}
		// A province's rows by the province alone: the prefix holds its
		// delimiter, so no other province's rows come back.
		for province, ages := range byProvince {
			var got []int64
			for rec, err := range idxRepo.Scan(ctx, dao.Prefix(&provinceAge{Province: province}, 1)) {
				if err != nil {
					t.Fatalf("Scan(%q): %v", province, err)
				}
				if rec.Province != province {
					t.Errorf("Scan(%q) returned %+v", province, *rec)
				}
				got = append(got, rec.Age)
			}
			slices.Sort(got)
			slices.Sort(ages)
			if !slices.Equal(got, ages) {
				t.Errorf("Scan(%q): ages %v, Java wrote %v", province, got, ages)
			}
		}
	})
}
