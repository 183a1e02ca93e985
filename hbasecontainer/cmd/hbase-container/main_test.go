package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteEnv(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hbase.env")
	if err := os.WriteFile(path, nil, 0o644); err != nil { // mktemp's empty file
		t.Fatal(err)
	}
	if err := writeEnv(path, "HBKIT_ZK=127.0.0.1:2281"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "HBKIT_ZK=127.0.0.1:2281\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
}

func TestWriteEnvNoDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "hbase.env")
	if err := writeEnv(path, "HBKIT_ZK=x"); err == nil {
		t.Fatalf("writeEnv(%s) = nil, want an error", path)
	}
}

func TestPortsFromEnv(t *testing.T) {
	env := map[string]string{"HBKIT_ZK_PORT": "2281", "HBKIT_RS_PORT": "16120"}
	p, err := portsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if p.ZK != 2281 || p.Master != 0 || p.RegionServer != 16120 {
		t.Errorf("ports = %+v, want ZK 2281, master 0 (free), region server 16120", p)
	}
	env["HBKIT_MASTER_PORT"] = "x"
	if _, err := portsFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Error("HBKIT_MASTER_PORT=x: no error")
	}
}
