package cli

import (
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
)

// withSeeds registers the seeds in e the way seedcli.Register does for
// cmd/hbkit (cli's own tests cannot import seedcli, which imports cli),
// and returns e.
func withSeeds(e *Env) *Env {
	e.Schemas = map[string]schema.Definition{}
	for _, name := range seeds.BuiltinNames() {
		d, err := seeds.Builtin(name)
		if err != nil {
			panic(err) // cannot happen: seeds.TestBuiltins builds every seed
		}
		e.Schemas[name] = d
	}
	e.Workloads = seedsim.Workloads()
	return e
}
