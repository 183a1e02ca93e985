package cli

import "testing"

func TestQuorum(t *testing.T) {
	tests := []struct {
		name, flag, envZK, want string
	}{
		{"flag wins", "zk1:2181,zk2:2181", "other:2181", "zk1:2181,zk2:2181"},
		{"environment", "", "other:2181", "other:2181"},
		{"local default", "", "", defaultQuorum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Env{Getenv: func(k string) string {
				if k == "HBKIT_ZK" {
					return tt.envZK
				}
				return ""
			}}
			if got := e.quorum(tt.flag); got != tt.want {
				t.Errorf("quorum(%q) with HBKIT_ZK=%q = %q, want %q", tt.flag, tt.envZK, got, tt.want)
			}
		})
	}
	if got := (&Env{}).quorum(""); got != defaultQuorum {
		t.Errorf("quorum without getenv = %q, want %q", got, defaultQuorum)
	}
}
