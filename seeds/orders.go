package seeds

import (
	"strconv"
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// RecordType tells the record types of the single CUSTOMER++ table apart
// (seed 004, "single table with record types").
type RecordType uint8

// Record types, written as one digit in the row key. Their order is the
// order of a customer's rows: the customer, then its orders, then the
// order lines.
const (
	CustomerRecord RecordType = 1
	OrderRecord    RecordType = 2
	LineRecord     RecordType = 3
)

// String returns "customer", "order" or "line".
func (r RecordType) String() string {
	switch r {
	case CustomerRecord:
		return "customer"
	case OrderRecord:
		return "order"
	case LineRecord:
		return "line"
	}
	return "record type " + strconv.Itoa(int(r))
}

// CustomerOrder is one row of the CUSTOMER++ table: a customer, one of its
// orders or one line of an order, told apart by Type. Fields that do not
// belong to the type are zero and write no cell.
type CustomerOrder struct {
	CustomerID string
	Type       RecordType
	OrderID    uint64 // 0 for a customer record
	Line       uint64 // 0 for customer and order records

	// Customer record.
	Name, City, Phone string
	// Order record.
	SalesDate time.Time
	// Line record (shipping location denormalised into the line, as the
	// book's "denormalization" variant does).
	Item     string
	Quantity int64
	ShipTo   string
}

// Names and widths of the customer/order tables. Changing a width is a
// data migration.
const (
	CustomerOrderName     = "customer_order"
	OrderMD5Name          = "order_md5"
	CustomerHashWidth     = 4  // hex digits of md5(customer id) leading the key
	OrderIDWidth          = 10 // decimal digits
	LineWidth             = 4  // decimal digits
	CustomerOrderRegions  = 16 // one per leading hex digit
	OrderMD5Regions       = 16
	customerOrderFamily   = "d"
	orderMD5FamilyDefault = "o"
)

// CustomerOrderTable returns the CUSTOMER++ single table of seed 004:
// [customer hash][customer id][type][order id][line], where the hash is
// the first 4 hex digits of md5(customer id) (spreading customers over the
// regions while keeping each customer's rows together), the customer id is
// an escaped self-delimiting string, the type one digit, the order id 10
// digits and the line number 4 digits. One prefix scan on
// [hash][customer id] returns the customer, then its orders, then their
// lines. Pre-split into 16 regions on the leading hex digit.
func CustomerOrderTable() (*schema.Table[CustomerOrder], error) {
	key, err := keys.NewLayout(
		keys.MD5Hex("customer_hash", CustomerHashWidth, func(c *CustomerOrder) string { return c.CustomerID }),
		keys.String("customer",
			func(c *CustomerOrder) string { return c.CustomerID },
			func(c *CustomerOrder, v string) { c.CustomerID = v }),
		keys.Decimal("type", 1,
			func(c *CustomerOrder) uint64 { return uint64(c.Type) },
			func(c *CustomerOrder, v uint64) { c.Type = RecordType(v) }),
		keys.Decimal("order", OrderIDWidth,
			func(c *CustomerOrder) uint64 { return c.OrderID },
			func(c *CustomerOrder, v uint64) { c.OrderID = v }),
		keys.Decimal("line", LineWidth,
			func(c *CustomerOrder) uint64 { return c.Line },
			func(c *CustomerOrder, v uint64) { c.Line = v }),
	)
	if err != nil {
		return nil, layoutError(CustomerOrderName, err)
	}
	f := customerOrderFamily
	return schema.New(schema.Spec[CustomerOrder]{
		Name:     CustomerOrderName,
		Families: []schema.Family{{Name: f, BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy}},
		Key:      key,
		From:     map[string]string{"customer_hash": "customer"},
		Splits:   schema.Splits{Regions: CustomerOrderRegions},
		Columns: []schema.Column[CustomerOrder]{
			schema.StringColumn("name", f, "name", func(c *CustomerOrder) string { return c.Name }, func(c *CustomerOrder, v string) { c.Name = v }),
			schema.StringColumn("city", f, "city", func(c *CustomerOrder) string { return c.City }, func(c *CustomerOrder, v string) { c.City = v }),
			schema.StringColumn("phone", f, "phone", func(c *CustomerOrder) string { return c.Phone }, func(c *CustomerOrder, v string) { c.Phone = v }),
			schema.TimeColumn("sales_date", f, "date", func(c *CustomerOrder) time.Time { return c.SalesDate }, func(c *CustomerOrder, v time.Time) { c.SalesDate = v }),
			schema.StringColumn("item", f, "item", func(c *CustomerOrder) string { return c.Item }, func(c *CustomerOrder, v string) { c.Item = v }),
			onlyFor(LineRecord, schema.Int64Column("quantity", f, "qty", func(c *CustomerOrder) int64 { return c.Quantity }, func(c *CustomerOrder, v int64) { c.Quantity = v })),
			schema.StringColumn("ship_to", f, "ship", func(c *CustomerOrder) string { return c.ShipTo }, func(c *CustomerOrder, v string) { c.ShipTo = v }),
		},
	})
}

// onlyFor restricts a column to rows of one record type.
func onlyFor(t RecordType, c schema.Column[CustomerOrder]) schema.Column[CustomerOrder] {
	app := c.Append
	c.Append = func(dst []byte, v *CustomerOrder) ([]byte, bool) {
		if v.Type != t {
			return dst, false
		}
		return app(dst, v)
	}
	return c
}

// Order is a sales order of the book's fixed-width customer/order keys.
type Order struct {
	CustomerNumber string
	OrderNumber    string
	SalesDate      time.Time
}

// OrderMD5Table returns the book's "composite rowkey with hashes":
// [MD5 of customer number] (16 bytes) + [MD5 of order number] (16 bytes),
// 32 bytes for any numbers. The hashes cannot be decoded, so both numbers
// are stored as columns too. Pre-split into 16 regions on the first byte.
func OrderMD5Table() (*schema.Table[Order], error) {
	customer := func(o *Order) string { return o.CustomerNumber }
	order := func(o *Order) string { return o.OrderNumber }
	key, err := keys.NewLayout(
		keys.MD5("customer_md5", 16, customer),
		keys.MD5("order_md5", 16, order),
	)
	if err != nil {
		return nil, layoutError(OrderMD5Name, err)
	}
	f := orderMD5FamilyDefault
	return schema.New(schema.Spec[Order]{
		Name:     OrderMD5Name,
		Families: []schema.Family{{Name: f, BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy}},
		Key:      key,
		From:     map[string]string{"customer_md5": "customer", "order_md5": "order"},
		Splits:   schema.Splits{Regions: OrderMD5Regions},
		Columns: []schema.Column[Order]{
			schema.StringColumn("customer", f, "c", customer, func(o *Order, v string) { o.CustomerNumber = v }),
			schema.StringColumn("order", f, "o", order, func(o *Order, v string) { o.OrderNumber = v }),
			schema.TimeColumn("sales_date", f, "d", func(o *Order) time.Time { return o.SalesDate }, func(o *Order, v time.Time) { o.SalesDate = v }),
		},
	})
}
