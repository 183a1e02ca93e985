package seedsim

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/sim"
)

// BuiltinNames returns the names Builtin accepts: the built-in schemas of
// package schema and NaiveSMSTableName, sorted.
func BuiltinNames() []string {
	names := append(seeds.BuiltinNames(), NaiveSMSTableName)
	slices.Sort(names)
	return names
}

// NaiveSMSRegions is the number of regions Builtin pre-splits the naive
// SMS table into, as many as the real design.
const NaiveSMSRegions = seeds.SMSRegions

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
func Builtin(name string, cfg sim.Config) (sim.Source, error) {
	switch name {
	case seeds.SMSTableName, seeds.SMSIndexTableName, NaiveSMSTableName:
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
			return sim.FromTable(t, w, SMSTime), nil
		}
		t, err := seeds.SMSTable()
		if err != nil {
			return nil, err
		}
		if name == seeds.SMSIndexTableName {
			ix, _ := t.Index(seeds.SMSIndexTableName)
			return sim.FromIndex(ix, w, SMSTime), nil
		}
		return sim.FromTable(t, w, SMSTime), nil
	case seeds.TestTableName, seeds.TestTableIndexName:
		w, err := NewUserWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := seeds.TestTable()
		if err != nil {
			return nil, err
		}
		if name == seeds.TestTableIndexName {
			ix, _ := t.Index(seeds.TestTableIndexName)
			return sim.FromIndex(ix, w, userTime(w.cfg)), nil
		}
		return sim.FromTable(t, w, userTime(w.cfg)), nil
	case seeds.LogDataBucketedName, seeds.LogDataByHostName, seeds.LogDataMD5Name:
		w, err := NewLogWorkload(cfg)
		if err != nil {
			return nil, err
		}
		build := map[string]func() (*schema.Table[seeds.LogEvent], error){
			seeds.LogDataBucketedName: seeds.LogDataBucketed,
			seeds.LogDataByHostName:   seeds.LogDataByHost,
			seeds.LogDataMD5Name:      seeds.LogDataMD5,
		}[name]
		t, err := build()
		if err != nil {
			return nil, err
		}
		return sim.FromTable(t, w, func(e *seeds.LogEvent) int64 { return e.At.UnixMilli() }), nil
	case seeds.LogDataWideName:
		w, err := NewLogWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := seeds.LogDataWide()
		if err != nil {
			return nil, err
		}
		return FromLogWide(t, w), nil
	case seeds.CustomerOrderName:
		w, err := NewCustomerWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := seeds.CustomerOrderTable()
		if err != nil {
			return nil, err
		}
		return sim.FromTable(t, w, func(c *seeds.CustomerOrder) int64 { return c.SalesDate.UnixMilli() }), nil
	case seeds.OrderMD5Name:
		w, err := NewOrderWorkload(cfg)
		if err != nil {
			return nil, err
		}
		t, err := seeds.OrderMD5Table()
		if err != nil {
			return nil, err
		}
		return sim.FromTable(t, w, func(o *seeds.Order) int64 { return o.SalesDate.UnixMilli() }), nil
	}
	return nil, configErr("schema", "no built-in workload for %s (have %v)", strconv.Quote(name), BuiltinNames())
}

// configErr is the *sim.ConfigError of a workload's invalid Config.
func configErr(field, format string, args ...any) error {
	return &sim.ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Workloads returns Builtin as one generator per name of BuiltinNames:
// the form cli.Env.Workloads registers them in.
func Workloads() map[string]func(cfg sim.Config) (sim.Source, error) {
	out := map[string]func(sim.Config) (sim.Source, error){}
	for _, name := range BuiltinNames() {
		out[name] = func(cfg sim.Config) (sim.Source, error) { return Builtin(name, cfg) }
	}
	return out
}
