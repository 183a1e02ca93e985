package schema

import "github.com/hbkit/hbkit/hbase/hbapi"

// Renamed returns d under another table name, with the same families, key
// and split keys: how a store serving a schema under other names (dao's
// WithTableNames and WithNamespace) hands its tables to admin.
func Renamed(d Definition, name hbapi.TableName) Definition {
	if d == nil || d.Name() == name {
		return d
	}
	return renamed{Definition: d, name: name}
}

type renamed struct {
	Definition
	name hbapi.TableName
}

func (r renamed) Name() hbapi.TableName { return r.name }
