package seeds

import (
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// User is a row of seed 001's example table: a user id and the user's
// basic attributes (province, age, gender), the table1 of its secondary
// index discussion.
type User struct {
	UID      string
	Province string
	Age      int64
	Gender   string
}

// TestTableName is the name of seed 001's example table.
const TestTableName = "TestTable"

// TestTableIndexName is the name of TestTable's inverted index, seed 001
// §3.3's table2.
const TestTableIndexName = "TestTable_province_age"

// TestTableRegions is the number of regions TestTable is pre-split into.
const TestTableRegions = 16

// TestTableFamily returns the single family of seed 001's create
// statement, with every option spelled out as the seed does:
//
//	{NAME=>'CF1', BLOOMFILTER=>'ROW', BLOCKSIZE=>'65536', VERSIONS=>'3',
//	 COMPRESSION=>'SNAPPY', BLOCKCACHE=>'true', IN_MEMORY=>'false', TTL=>'3600'}
func TestTableFamily() schema.Family {
	return schema.Family{
		Name: "CF1", BloomFilter: schema.BloomRow, BlockSize: 65536, Versions: 3,
		Compression: schema.CompressionSnappy, BlockCache: schema.On, InMemory: schema.Off, TTL: 3600 * time.Second,
	}
}

// TestTable returns seed 001's TestTable with the family of
// TestTableFamily. The row key follows the seed's load-balancing advice,
// "the first 6 characters of the MD5 of the UID", followed by the UID
// itself so keys stay unique and decodable: [md5(uid) 6 hex][uid]. It is
// pre-split into 16 regions on the leading hex digit.
//
// It carries seed 001's inverted index (§3.3's table2), TestTableIndexName:
// row key province + "_" + age as Java concatenates them ("辽宁省_20"),
// family "user", one column per user, its qualifier the plain uid. "How
// many users of Liaoning are 20" is one row read. The family has CF1's
// options, its TTL included, so that an entry expires with its record.
func TestTable() (*schema.Table[User], error) {
	uid := func(u *User) string { return u.UID }
	setUID := func(u *User, v string) { u.UID = v }
	key, err := keys.NewLayout(
		keys.MD5Hex("uid_md5", 6, uid),
		keys.String("uid", uid, setUID),
	)
	if err != nil {
		return nil, layoutError(TestTableName, err)
	}
	ixKey, err := keys.NewLayout(keys.Joined("_",
		keys.TextString("province", func(u *User) string { return u.Province }, func(u *User, v string) { u.Province = v }),
		keys.TextInt("age", func(u *User) int64 { return u.Age }, func(u *User, v int64) { u.Age = v }),
	)...)
	if err != nil {
		return nil, layoutError(TestTableIndexName, err)
	}
	qual, err := keys.NewLayout(keys.TrailingString("uid", uid, setUID))
	if err != nil {
		return nil, layoutError(TestTableIndexName, err)
	}
	userFamily := TestTableFamily()
	userFamily.Name = "user"
	return schema.New(schema.Spec[User]{
		Name:     TestTableName,
		Families: []schema.Family{TestTableFamily()},
		Key:      key,
		From:     map[string]string{"uid_md5": "uid"},
		Splits:   schema.Splits{Regions: TestTableRegions},
		Columns: []schema.Column[User]{
			schema.StringColumn("province", "CF1", "province", func(u *User) string { return u.Province }, func(u *User, v string) { u.Province = v }),
			schema.Int64Column("age", "CF1", "age", func(u *User) int64 { return u.Age }, func(u *User, v int64) { u.Age = v }),
			schema.StringColumn("gender", "CF1", "gender", func(u *User) string { return u.Gender }, func(u *User, v string) { u.Gender = v }),
		},
		Indexes: []schema.IndexSpec[User]{{
			Name:      TestTableIndexName,
			Families:  []schema.Family{userFamily},
			Key:       ixKey,
			Qualifier: qual,
		}},
	})
}
