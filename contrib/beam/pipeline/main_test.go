package pipeline

import (
	"flag"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// TestMain lets Beam take over when the runner starts this binary as a
// worker (beam.Init); Prism's default loopback workers run in this
// process.
func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}
