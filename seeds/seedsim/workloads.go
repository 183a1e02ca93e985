package seedsim

import (
	"iter"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/sim"
)

// UserWorkload generates seed 001's users (TestTable): Records users with
// ids u000000001, u000000002, ..., a province, an age and a gender, signed
// up in time order over the window.
type UserWorkload struct{ cfg sim.Config }

var _ sim.Generator[seeds.User] = (*UserWorkload)(nil)

// NewUserWorkload validates cfg. Entities is not used.
func NewUserWorkload(cfg sim.Config) (*UserWorkload, error) {
	c, err := cfg.WithDefaults(0)
	if err != nil {
		return nil, err
	}
	return &UserWorkload{cfg: c}, nil
}

// Len returns the number of users.
func (w *UserWorkload) Len() int64 { return w.cfg.Records }

// Window returns the sign-up window.
func (w *UserWorkload) Window() (from, to time.Time) { return w.cfg.Window() }

// Records iterates over the users; each user id is one small allocation.
func (w *UserWorkload) Records() iter.Seq[*seeds.User] {
	provinces := []string{"北京", "上海", "广东", "浙江", "江苏", "四川", "湖北", "山东", "河南", "福建"}
	return func(yield func(*seeds.User) bool) {
		r := sim.NewRand(w.cfg.Seed, 3)
		var u seeds.User
		buf := make([]byte, 0, 16)
		for i := int64(0); i < w.cfg.Records; i++ {
			buf = append(buf[:0], 'u')
			buf = appendPadded(buf, uint64(i+1), 9)
			u.UID = string(buf)
			u.Province = provinces[r.IntN(len(provinces))]
			u.Age = 16 + r.Int64N(60)
			u.Gender = "F"
			if r.IntN(2) == 0 {
				u.Gender = "M"
			}
			if !yield(&u) {
				return
			}
		}
	}
}

// userTime spreads users over the window by their id: the user source's
// record time.
func userTime(c sim.Config) func(*seeds.User) int64 {
	k := c.Clock()
	return func(u *seeds.User) int64 {
		id, _ := strconv.ParseInt(u.UID[1:], 10, 64)
		return k.Step(id - 1)
	}
}

// LogWorkload generates the LOG_DATA events of seed 004: Records events
// from Entities hosts (default 50; host00.example.com ...), of a handful
// of event types, in time order over the window.
type LogWorkload struct{ cfg sim.Config }

var _ sim.Generator[seeds.LogEvent] = (*LogWorkload)(nil)

// NewLogWorkload validates cfg.
func NewLogWorkload(cfg sim.Config) (*LogWorkload, error) {
	c, err := cfg.WithDefaults(50)
	if err != nil {
		return nil, err
	}
	if c.Entities > 1_000_000 {
		return nil, configErr("Entities", "%d hosts is more than a million", c.Entities)
	}
	return &LogWorkload{cfg: c}, nil
}

// Len returns the number of events.
func (w *LogWorkload) Len() int64 { return w.cfg.Records }

// Window returns the time window of the events.
func (w *LogWorkload) Window() (from, to time.Time) { return w.cfg.Window() }

// Records iterates over the events; the *seeds.LogEvent is reused.
func (w *LogWorkload) Records() iter.Seq[*seeds.LogEvent] {
	hosts := make([]string, w.cfg.Entities)
	for i := range hosts {
		hosts[i] = "host" + string(appendPadded(nil, uint64(i), 2)) + ".example.com"
	}
	events := []string{"login", "logout", "error", "warn", "gc", "request"}
	return func(yield func(*seeds.LogEvent) bool) {
		r := sim.NewRand(w.cfg.Seed, 4)
		k := w.cfg.Clock()
		pick := w.cfg.Picker(r, len(hosts))
		var e seeds.LogEvent
		for i := int64(0); i < w.cfg.Records; i++ {
			e.Host = hosts[pick.Next()]
			e.At = time.UnixMilli(k.At(r, i)).UTC()
			e.Event = events[r.IntN(len(events))]
			e.Message = e.Event + " on " + e.Host
			if !yield(&e) {
				return
			}
		}
	}
}

// CustomerWorkload generates the CUSTOMER++ rows of seed 004: customers
// C0000001, ... each followed by one to four orders of one to three lines,
// until Records rows; sales dates advance over the window.
type CustomerWorkload struct{ cfg sim.Config }

var _ sim.Generator[seeds.CustomerOrder] = (*CustomerWorkload)(nil)

// NewCustomerWorkload validates cfg. Entities is not used.
func NewCustomerWorkload(cfg sim.Config) (*CustomerWorkload, error) {
	c, err := cfg.WithDefaults(0)
	if err != nil {
		return nil, err
	}
	return &CustomerWorkload{cfg: c}, nil
}

// Len returns the number of rows.
func (w *CustomerWorkload) Len() int64 { return w.cfg.Records }

// Window returns the time window of the sales.
func (w *CustomerWorkload) Window() (from, to time.Time) { return w.cfg.Window() }

// Records iterates over the rows: a customer, its orders, their lines.
func (w *CustomerWorkload) Records() iter.Seq[*seeds.CustomerOrder] {
	items := []string{"book", "pen", "phone", "tea", "shoes", "lamp"}
	return func(yield func(*seeds.CustomerOrder) bool) {
		r := sim.NewRand(w.cfg.Seed, 5)
		k := w.cfg.Clock()
		var c seeds.CustomerOrder
		var i, cust, order int64
		emit := func() bool {
			c.SalesDate = time.UnixMilli(k.At(r, i)).UTC()
			i++
			return yield(&c)
		}
		for i < w.cfg.Records {
			cust++
			c = seeds.CustomerOrder{CustomerID: "C" + string(appendPadded(nil, uint64(cust), 7)), Type: seeds.CustomerRecord,
				Name: "customer " + strconv.FormatInt(cust, 10), City: "Shanghai"}
			if !emit() {
				return
			}
			for o := 1 + r.IntN(4); o > 0 && i < w.cfg.Records; o-- {
				order++
				c = seeds.CustomerOrder{CustomerID: c.CustomerID, Type: seeds.OrderRecord, OrderID: uint64(order)}
				if !emit() {
					return
				}
				for l := 1; l <= 1+r.IntN(3) && i < w.cfg.Records; l++ {
					c = seeds.CustomerOrder{CustomerID: c.CustomerID, Type: seeds.LineRecord, OrderID: uint64(order),
						Line: uint64(l), Item: items[r.IntN(len(items))], Quantity: 1 + r.Int64N(5)}
					if !emit() {
						return
					}
				}
			}
		}
	}
}

// OrderWorkload generates the orders of the book's MD5 order table: Records
// orders O0000000001, ... from Entities customers (default 10,000), in
// time order.
type OrderWorkload struct{ cfg sim.Config }

var _ sim.Generator[seeds.Order] = (*OrderWorkload)(nil)

// NewOrderWorkload validates cfg.
func NewOrderWorkload(cfg sim.Config) (*OrderWorkload, error) {
	c, err := cfg.WithDefaults(int(min(cfg.Records, 10_000)))
	if err != nil {
		return nil, err
	}
	return &OrderWorkload{cfg: c}, nil
}

// Len returns the number of orders.
func (w *OrderWorkload) Len() int64 { return w.cfg.Records }

// Window returns the time window of the orders.
func (w *OrderWorkload) Window() (from, to time.Time) { return w.cfg.Window() }

// Records iterates over the orders; the *seeds.Order is reused.
func (w *OrderWorkload) Records() iter.Seq[*seeds.Order] {
	return func(yield func(*seeds.Order) bool) {
		r := sim.NewRand(w.cfg.Seed, 6)
		k := w.cfg.Clock()
		pick := w.cfg.Picker(r, w.cfg.Entities)
		var o seeds.Order
		buf := make([]byte, 0, 16)
		for i := int64(0); i < w.cfg.Records; i++ {
			buf = append(buf[:0], 'C')
			buf = appendPadded(buf, uint64(1+pick.Next()), 7)
			o.CustomerNumber = string(buf)
			buf = append(buf[:0], 'O')
			buf = appendPadded(buf, uint64(i+1), 10)
			o.OrderNumber = string(buf)
			o.SalesDate = time.UnixMilli(k.At(r, i)).UTC()
			if !yield(&o) {
				return
			}
		}
	}
}

// appendPadded appends v in decimal, left-padded with zeros to width.
func appendPadded(dst []byte, v uint64, width int) []byte {
	var b [20]byte
	s := strconv.AppendUint(b[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}
