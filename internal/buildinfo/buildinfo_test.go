package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"main module, VCS version", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.2.1-0.20261127223000-abcdef123456+dirty"}}, "v0.2.1-0.20261127223000-abcdef123456+dirty"},
		{"main module, devel", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, "(devel)"},
		{"a dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: "other", Version: "v1.0.0"}, {Path: Module, Version: "v0.2.0"}}}, "v0.2.0"},
		{"a replaced dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: Module, Version: "v0.2.0", Replace: &debug.Module{Path: "../hbkit", Version: ""}}}}, "v0.2.0"},
		{"absent", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}}, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := moduleVersion(&tt.bi); got != tt.want {
				t.Errorf("moduleVersion = %q, want %q", got, tt.want)
			}
		})
	}
	if Version() == "" {
		t.Error("Version() is empty")
	}
}
