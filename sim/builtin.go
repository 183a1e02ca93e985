package sim

import (
	"iter"
	"slices"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/schema"
)

// BuiltinNames returns the names Builtin accepts: the built-in schemas of
// package schema and NaiveSMSTableName, sorted.
func BuiltinNames() []string {
	names := append(schema.BuiltinNames(), NaiveSMSTableName)
	slices.Sort(names)
	return names
}

// NaiveSMSRegions is the number of regions Builtin pre-splits the naive
// SMS table into, as many as the real design.
const NaiveSMSRegions = schema.SMSRegions

// Builtin returns the writes of a generated workload to the built-in table
// name (see BuiltinNames), with the table's own split keys:
//
//   - sms, sms_index: SMSWorkload, the data table or its index;
//   - sms_naive: SMSWorkload to NaiveSMSTable, pre-split into 20 regions
//     by NaiveSMSSplits over the workload's window;
//   - TestTable, TestTable_province_age: UserWorkload;
//   - log_data_bucketed, log_data_by_host, log_data_md5: LogWorkload;
//   - log_data_wide: LogWorkload, one cell per event (FromLogWide);
//   - customer_order: CustomerWorkload; order_md5: OrderWorkload.
//
// An unknown name is a *ConfigError.
func Builtin(name string, cfg Config) (Source, error) {
	switch name {
	case schema.SMSTableName, schema.SMSIndexTableName, NaiveSMSTableName:
		w, err := NewSMSWorkload(cfg)
		if err != nil {
			return nil, err
		}
		switch name {
		case NaiveSMSTableName:
			from, to := w.Window()
			splits, err := NaiveSMSSplits(from, to, NaiveSMSRegions)
			if err != nil {
				return nil, err
			}
			t, err := NaiveSMSTable(splits)
			if err != nil {
				return nil, err
			}
			return FromTable(t, w, SMSTime), nil
		}
		t, err := schema.SMSTable()
		if err != nil {
			return nil, err
		}
		if name == schema.SMSIndexTableName {
			ix, _ := t.Index(schema.SMSIndexTableName)
			return FromIndex(ix, w, SMSTime), nil
		}
		return FromTable(t, w, SMSTime), nil
	case schema.TestTableName, schema.TestTableIndexName:
		w, err := NewUserWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := schema.TestTable()
		if err != nil {
			return nil, err
		}
		if name == schema.TestTableIndexName {
			ix, _ := t.Index(schema.TestTableIndexName)
			return FromIndex(ix, w, userTime(w.cfg)), nil
		}
		return FromTable(t, w, userTime(w.cfg)), nil
	case schema.LogDataBucketedName, schema.LogDataByHostName, schema.LogDataMD5Name:
		w, err := NewLogWorkload(cfg)
		if err != nil {
			return nil, err
		}
		build := map[string]func() (*schema.Table[schema.LogEvent], error){
			schema.LogDataBucketedName: schema.LogDataBucketed,
			schema.LogDataByHostName:   schema.LogDataByHost,
			schema.LogDataMD5Name:      schema.LogDataMD5,
		}[name]
		t, err := build()
		if err != nil {
			return nil, err
		}
		return FromTable(t, w, func(e *schema.LogEvent) int64 { return e.At.UnixMilli() }), nil
	case schema.LogDataWideName:
		w, err := NewLogWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := schema.LogDataWide()
		if err != nil {
			return nil, err
		}
		return FromLogWide(t, w), nil
	case schema.CustomerOrderName:
		w, err := NewCustomerWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := schema.CustomerOrderTable()
		if err != nil {
			return nil, err
		}
		return FromTable(t, w, func(c *schema.CustomerOrder) int64 { return c.SalesDate.UnixMilli() }), nil
	case schema.OrderMD5Name:
		w, err := NewOrderWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := schema.OrderMD5Table()
		if err != nil {
			return nil, err
		}
		return FromTable(t, w, func(o *schema.Order) int64 { return o.SalesDate.UnixMilli() }), nil
	}
	return nil, configErr("schema", "no built-in workload for %s (have %v)", strconv.Quote(name), BuiltinNames())
}

// keysSource is a Source over keys held in memory, such as a sample file.
type keysSource struct {
	table    string
	splits   [][]byte
	keys     [][]byte
	at       []int64
	from, to int64
}

// FromKeys returns a Source over keys written in the given order. at holds
// each key's record time in Unix ms; if it is nil, key i is written at
// time i (ms after the epoch), so time slices follow the order of the keys,
// and the report says so (Report.Ordinal).
// Sizes are those of empty cells (RowSize of the key alone).
func FromKeys(table string, splits [][]byte, keyList [][]byte, at []int64) (Source, error) {
	if at != nil && len(at) != len(keyList) {
		return nil, configErr("keys", "%d keys but %d times", len(keyList), len(at))
	}
	if len(keyList) == 0 {
		return nil, configErr("keys", "no keys")
	}
	s := &keysSource{table: table, splits: cloneKeys(splits), keys: keyList, at: at}
	if at == nil {
		s.from, s.to = 0, int64(len(keyList))
	} else {
		s.from, s.to = at[0], at[0]
		for _, t := range at {
			s.from = min(s.from, t)
			s.to = max(s.to, t)
		}
		s.to++
	}
	return s, nil
}

// Ordinal reports that times are write numbers, not record times.
func (s *keysSource) Ordinal() bool { return s.at == nil }

func (s *keysSource) Table() string    { return s.table }
func (s *keysSource) Splits() [][]byte { return cloneKeys(s.splits) }
func (s *keysSource) Len() int64       { return int64(len(s.keys)) }
func (s *keysSource) Window() (from, to time.Time) {
	return time.UnixMilli(s.from).UTC(), time.UnixMilli(s.to).UTC()
}

func (s *keysSource) Writes() iter.Seq2[Write, error] {
	return func(yield func(Write, error) bool) {
		for i, k := range s.keys {
			at := int64(i)
			if s.at != nil {
				at = s.at[i]
			}
			if !yield(Write{Key: k, At: at, Size: cellOverhead + len(k)}, nil) {
				return
			}
		}
	}
}
