package hbasemock_test

import (
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/hbasemock"
)

var (
	_ hbase.DataClient = (*hbasemock.MockDataClient)(nil)
	_ hbase.Scanner    = (*hbasemock.MockScanner)(nil)
)
