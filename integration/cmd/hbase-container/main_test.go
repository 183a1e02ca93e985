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
