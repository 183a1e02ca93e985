package schema

import (
	"slices"
	"testing"

	"github.com/hbkit/hbkit/keys"
)

// TestDocumentKindsCoverKeys: every segment kind of package keys has a
// document kind, so a Go layout always has a description.
func TestDocumentKindsCoverKeys(t *testing.T) {
	for k := keys.KindLiteral; k <= keys.KindTimeOffset; k++ {
		if name := kindName(keys.Segment{Kind: k}); !slices.ContainsFunc(docKinds, func(d docKind) bool { return d.name == name }) {
			t.Errorf("keys kind %s has no document kind", k)
		}
	}
}
