package fake_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hbkit/hbkit/hbase/conformance"
	"github.com/hbkit/hbkit/hbase/fake"
)

func TestConformance(t *testing.T) {
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	conformance.Run(t, conformance.Harness{
		Data:  c,
		Admin: c,
		NewTableName: func(base string) string {
			return fmt.Sprintf("%s_%d", base, n.Add(1))
		},
	})
}
