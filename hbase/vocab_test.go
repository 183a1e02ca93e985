package hbase

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// TestVocabularyUpToDate fails when vocab.go does not declare exactly the
// exported names of package hbapi (run go generate in hbase).
func TestVocabularyUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run")
	}
	out, err := exec.Command("go", "run", "./internal/aliasgen", "-check").CombinedOutput()
	if err != nil {
		t.Fatalf("aliasgen -check: %v\n%s", err, out)
	}
}

// TestVocabularyIsShared: the names of hbase are those of hbapi, so a value
// made with one is the other's, and errors.Is matches across both.
func TestVocabularyIsShared(t *testing.T) {
	var a hbapi.Action = &Put{Table: "t"}
	if p, ok := a.(*hbapi.Put); !ok || p.Table != "t" {
		t.Errorf("*hbase.Put is not an *hbapi.Put: %T", a)
	}
	err := error(&InvalidRequestError{Err: ErrEmptyRow})
	if !errors.Is(err, hbapi.ErrEmptyRow) {
		t.Errorf("errors.Is(%v, hbapi.ErrEmptyRow) = false", err)
	}
	var ie *hbapi.InvalidRequestError
	if !errors.As(err, &ie) {
		t.Errorf("errors.As(%v, *hbapi.InvalidRequestError) = false", err)
	}
}
