package hbasecontainer

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestImageContract checks the repository's image against what Run
// relies on: the entrypoint reads every variable Run sets, the Dockerfile
// gives each a default (the bind host defaults to the advertised one in
// the entrypoint), and the health check waits for ReadyLine.
func TestImageContract(t *testing.T) {
	entry := readFile(t, "image/entrypoint.sh")
	dockerfile := readFile(t, "Dockerfile")
	log4j := readFile(t, "image/log4j2.properties")
	s := &settings{advertise: "127.0.0.1", heap: "1g"}
	for name := range s.env() {
		if !regexp.MustCompile(`\$\{?` + name + `\b`).MatchString(entry) {
			t.Errorf("image/entrypoint.sh does not read %s, which Run sets", name)
		}
		if name == "HBASE_BIND_HOST" {
			continue
		}
		if !regexp.MustCompile(`(?m)^\s*(ENV\s+)?` + name + `=\S+`).MatchString(dockerfile) {
			t.Errorf("Dockerfile gives %s no default", name)
		}
	}
	if !strings.Contains(log4j, ReadyLine) {
		t.Errorf("image/log4j2.properties does not copy %q to the health check's file", ReadyLine)
	}
	if !strings.Contains(dockerfile, `HEALTHCHECK`) || !strings.Contains(dockerfile, `$HBASE_STATE/ready`) {
		t.Error("Dockerfile has no HEALTHCHECK on $HBASE_STATE/ready")
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
