package main

import (
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// Names and sizes of the example's index. The data table is the built-in
// customer_order (seeds.CustomerOrderTable).
const (
	ByDateIndexName = "customer_order_by_date"
	ByDateBuckets   = 8 // hash(customer id) % 8 leads the index key
)

// CustomerOrders returns seed 004's CUSTOMER++ single table, row for row
// the built-in seeds.CustomerOrderTable ([customer hash][customer id]
// [type][order id][line]; TestSameAsBuiltin checks that every generated
// record encodes to the same row key and cells), declared here with a
// secondary index by sales date:
//
//	customer_order_by_date: [hash(customer id) % 8][yyyyMMdd][type][customer id][order id][line]
//
// The index holds an entry for every record under its record type, so the
// orders of a day are the prefix [bucket][yyyyMMdd][2] of each bucket: 8
// short scans. The bucket spreads each day's entries over the index's 8
// regions; a date-first key without it would send every write of a day to
// one region (the hotspot of seed 003).
func CustomerOrders() (*schema.Table[seeds.CustomerOrder], error) {
	type co = seeds.CustomerOrder
	customer := func(c *co) string { return c.CustomerID }
	setCustomer := func(c *co, v string) { c.CustomerID = v }
	recType := func(c *co) uint64 { return uint64(c.Type) }
	setType := func(c *co, v uint64) { c.Type = seeds.RecordType(v) }
	order := func(c *co) uint64 { return c.OrderID }
	setOrder := func(c *co, v uint64) { c.OrderID = v }
	line := func(c *co) uint64 { return c.Line }
	setLine := func(c *co, v uint64) { c.Line = v }

	key, err := keys.NewLayout(
		keys.MD5Hex("customer_hash", seeds.CustomerHashWidth, customer),
		keys.String("customer", customer, setCustomer),
		keys.Decimal("type", 1, recType, setType),
		keys.Decimal("order", seeds.OrderIDWidth, order, setOrder),
		keys.Decimal("line", seeds.LineWidth, line, setLine),
	)
	if err != nil {
		return nil, err
	}
	byDate, err := keys.NewLayout(
		keys.HashBucket("bucket", ByDateBuckets, customer, nil),
		keys.Date("day", func(c *co) time.Time { return c.SalesDate.UTC() }, nil),
		keys.Decimal("type", 1, recType, setType),
		keys.String("customer", customer, setCustomer),
		keys.Decimal("order", seeds.OrderIDWidth, order, setOrder),
		keys.Decimal("line", seeds.LineWidth, line, setLine),
	)
	if err != nil {
		return nil, err
	}
	const f = "d"
	family := schema.Family{Name: f, BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy}
	quantity := schema.Int64Column("quantity", f, "qty",
		func(c *co) int64 { return c.Quantity }, func(c *co, v int64) { c.Quantity = v })
	// Only line records have a quantity cell (an int64 column would
	// otherwise write a zero for every customer and order).
	appendQty := quantity.Append
	quantity.Append = func(dst []byte, c *co) ([]byte, bool) {
		if c.Type != seeds.LineRecord {
			return dst, false
		}
		return appendQty(dst, c)
	}
	return schema.New(schema.Spec[co]{
		Name:     seeds.CustomerOrderName,
		Families: []schema.Family{family},
		Key:      key,
		Splits:   schema.Splits{Regions: seeds.CustomerOrderRegions},
		Columns: []schema.Column[co]{
			schema.StringColumn("name", f, "name", func(c *co) string { return c.Name }, func(c *co, v string) { c.Name = v }),
			schema.StringColumn("city", f, "city", func(c *co) string { return c.City }, func(c *co, v string) { c.City = v }),
			schema.StringColumn("phone", f, "phone", func(c *co) string { return c.Phone }, func(c *co, v string) { c.Phone = v }),
			schema.TimeColumn("sales_date", f, "date", func(c *co) time.Time { return c.SalesDate }, func(c *co, v time.Time) { c.SalesDate = v }),
			schema.StringColumn("item", f, "item", func(c *co) string { return c.Item }, func(c *co, v string) { c.Item = v }),
			quantity,
			schema.StringColumn("ship_to", f, "ship", func(c *co) string { return c.ShipTo }, func(c *co, v string) { c.ShipTo = v }),
		},
		Indexes: []schema.IndexSpec[co]{{
			Name: ByDateIndexName,
			Families: []schema.Family{{
				Name: f, BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy,
				DataBlockEncoding: schema.EncodingFastDiff,
			}},
			Key:             byDate,
			From:            map[string]string{"bucket": "customer", "day": "sales_date"},
			Splits:          schema.Splits{Regions: ByDateBuckets},
			RowKeyQualifier: "row",
		}},
	})
}
