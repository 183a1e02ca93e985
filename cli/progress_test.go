package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/index"
)

// TestProgressNotOnATerminal: index verify with stderr in a buffer (a log,
// a pipe) writes plain progress lines, no \r frames.
func TestProgressNotOnATerminal(t *testing.T) {
	c := indexFixture(t, 12)
	_, errOut, err := runIndexCmd(t, c, "verify", "--schema", "sms")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errOut, "\r") {
		t.Errorf("\\r in progress written to a buffer: %q", errOut)
	}
	if !strings.Contains(errOut, "100% pass 2/2") || !strings.HasSuffix(errOut, "\n") {
		t.Errorf("no final progress line: %q", errOut)
	}
}

// TestProgressBar: on a terminal the bar redraws its line with \r; in a
// file it prints whole lines, at most one per logEvery and the last.
func TestProgressBar(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || isTerminal(&bytes.Buffer{}) {
		t.Error("a file or a buffer taken for a terminal")
	}
	steps := []index.Progress{{Pass: 1, Passes: 1, Table: "t", Fraction: 0.1}, {Pass: 1, Passes: 1, Table: "t", Fraction: 0.5}, {Pass: 1, Passes: 1, Table: "t", Fraction: 1}}
	for _, tt := range []struct {
		name      string
		tty       bool
		lines, cr int
	}{
		{"terminal", true, 1, 2}, // at least the first and the last frame
		{"log", false, 2, 0},     // the first and the last line
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &progressBar{w: &b, tty: tt.tty}
			for _, s := range steps {
				p.update(s)
			}
			p.finish()
			if got := strings.Count(b.String(), "\n"); got != tt.lines {
				t.Errorf("%d lines, want %d: %q", got, tt.lines, b.String())
			}
			if got := strings.Count(b.String(), "\r"); got < tt.cr || !tt.tty && got > 0 {
				t.Errorf("%d \\r, want %d: %q", got, tt.cr, b.String())
			}
		})
	}
}
