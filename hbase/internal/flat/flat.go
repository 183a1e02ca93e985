// Package flat turns the family → qualifier → value maps of hbase's
// requests into cells sorted by family then qualifier: the order of the
// wire and of HBase. It is shared by the vocabulary (package hbapi) and
// the native client, and by no one else.
package flat

import (
	"slices"
	"strings"
)

// Col is one cell of a map, flattened.
type Col[V any] struct {
	Family, Qualifier string
	V                 V
}

// Map returns the cells of m sorted by family then qualifier.
func Map[V any](m map[string]map[string]V) []Col[V] {
	return MapInto(nil, m)
}

// MapInto is Map into dst's memory when it holds them all (a caller's
// array can then stay on its stack).
func MapInto[V any](dst []Col[V], m map[string]map[string]V) []Col[V] {
	n := 0
	for _, qs := range m {
		n += len(qs)
	}
	out := dst[:0]
	if cap(out) < n {
		out = make([]Col[V], 0, n)
	}
	for f, qs := range m {
		for q, v := range qs {
			out = append(out, Col[V]{f, q, v})
		}
	}
	slices.SortFunc(out, func(a, b Col[V]) int {
		if c := strings.Compare(a.Family, b.Family); c != 0 {
			return c
		}
		return strings.Compare(a.Qualifier, b.Qualifier)
	})
	return out
}
