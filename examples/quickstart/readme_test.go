package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEShowsQuickStart keeps the README's quick start the code that
// Example and TestIntegrationQuickStart run: quickstart.go from its User
// type to its end, and the output Example expects.
func TestREADMEShowsQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("quickstart.go")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	i := strings.Index(code, "// User is a record")
	if i < 0 {
		t.Fatal("quickstart.go has no User type")
	}
	quick := string(readme)
	if end := strings.Index(quick, "\n## "+"Your own schema"); end > 0 {
		quick = quick[:end]
	}
	if !strings.Contains(quick, "```go\n"+strings.TrimRight(code[i:], "\n")+"\n") {
		t.Error("README's quick start does not show quickstart.go from its User type to its end")
	}
	if !strings.Contains(quick, "```\ninsert u1 again: true\n吉林省: u2 Bo 21\n```") {
		t.Error("README's quick start does not show Example's output")
	}
}
