package hbasecontainer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// NamespaceAdmin is what Namespace calls; hbkit's *hbase.Client has these
// methods.
type NamespaceAdmin interface {
	CreateNamespace(ctx context.Context, namespace string) error
	DeleteNamespace(ctx context.Context, namespace string) error
	ListTables(ctx context.Context, namespace string) ([]string, error)
	DisableTable(ctx context.Context, table string) error
	DeleteTable(ctx context.Context, table string) error
}

// cleanupTimeout bounds the drop of a test's namespace.
const cleanupTimeout = 2 * time.Minute

// Namespace creates a namespace of its own for tb, named after the test
// with a random suffix ("t_TestOrders_sub_3f9a1c"), and when tb ends
// drops every table in it and the namespace. Tables of the test are then
// "ns:name", so tests sharing one HBase never see each other's tables.
// It fails tb when the namespace cannot be created; a failed drop is
// reported with tb.Errorf.
func Namespace(tb testing.TB, c NamespaceAdmin) string {
	tb.Helper()
	ns := NamespaceName(tb.Name())
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if err := c.CreateNamespace(ctx, ns); err != nil {
		tb.Fatalf("hbasecontainer: create namespace %s: %v", ns, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := dropNamespace(ctx, c, ns); err != nil {
			tb.Errorf("hbasecontainer: drop namespace %s: %v", ns, err)
		}
	})
	return ns
}

// dropNamespace drops the tables of ns, then ns.
func dropNamespace(ctx context.Context, c NamespaceAdmin, ns string) error {
	tables, err := c.ListTables(ctx, ns)
	if err != nil {
		return err
	}
	for _, t := range tables {
		_ = c.DisableTable(ctx, t) // a disabled table drops all the same
		if err := c.DeleteTable(ctx, t); err != nil {
			return err
		}
	}
	return c.DeleteNamespace(ctx, ns)
}

// NamespaceName returns a namespace name for a test name: "t_", the
// name's letters, digits and underscores (others become '_', at most 40),
// then '_' and 6 random hex digits. HBase namespace names allow
// [a-zA-Z_0-9] only.
func NamespaceName(test string) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range test {
		if b.Len() >= 42 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	b.WriteString("_" + hex.EncodeToString(suffix[:]))
	return b.String()
}
