package pipeline

import (
	"flag"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/hbkit/hbkit/internal/ittest"
)

// TestMain lets Beam take over when the runner starts this binary as a
// worker (beam.Init); Prism's default loopback workers run in this
// process, so the tests' Task (newTask) is theirs.
func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(ittest.Main(m))
}
