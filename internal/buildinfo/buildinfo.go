// Package buildinfo says which version of hbkit is running, from the
// build information the Go toolchain embeds: the version of module
// github.com/hbkit/hbkit a program was built with (v0.2.0 when a team's
// go.mod requires it; the VCS-derived version, or "(devel)", when it is
// the main module, as in hbkit's own CLI). It is the one place the CLI's
// `hbkit version` and the telemetry scopes of hbase, dao and index read
// it from. Internal: users read debug.ReadBuildInfo themselves.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Module is hbkit's module path.
const Module = "github.com/hbkit/hbkit"

// Unknown is the version when the build carries no information about
// the module (a test binary of another module's package, say).
const Unknown = "(unknown)"

// Version returns the version of hbkit this program was built with.
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Unknown
	}
	return moduleVersion(bi)
})

// moduleVersion finds hbkit in bi: the main module or a dependency
// (followed through a replace).
func moduleVersion(bi *debug.BuildInfo) string {
	if bi.Main.Path == Module && bi.Main.Version != "" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path != Module {
			continue
		}
		if d.Replace != nil && d.Replace.Version != "" {
			return d.Replace.Version
		}
		if d.Version != "" {
			return d.Version
		}
	}
	return Unknown
}
