package seedcli

import (
	"maps"

	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
)

// Register adds the seeds to e. What e already registers under a seed's
// name stays.
func Register(e *cli.Env) error {
	schemas := map[string]schema.Definition{}
	for _, name := range seeds.BuiltinNames() {
		d, err := seeds.Builtin(name)
		if err != nil {
			return err
		}
		schemas[name] = d
	}
	e.Schemas = under(e.Schemas, schemas)
	e.Workloads = under(e.Workloads, seedsim.Workloads())
	return nil
}

// under returns mine with the entries of seeds it does not have.
func under[V any](mine, seeds map[string]V) map[string]V {
	out := maps.Clone(seeds)
	maps.Copy(out, mine)
	return out
}
