package schema

import (
	"errors"
	"strings"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Namespaces HBase creates by itself.
const (
	// DefaultNamespace is where a table goes when its name has no namespace.
	DefaultNamespace = hbapi.DefaultNamespace
	// SystemNamespace holds HBase's own tables (hbase:meta, …).
	SystemNamespace = hbapi.SystemNamespace
)

// NewTableName returns the validated name ns:qualifier. An empty ns means
// DefaultNamespace. A failure is a *Error with Kind ErrInvalidName.
func NewTableName(ns, qualifier string) (hbapi.TableName, error) {
	n := hbapi.TableName{Namespace: ns, Qualifier: qualifier}
	if n.Namespace == "" {
		n.Namespace = DefaultNamespace
	}
	if err := n.Validate(); err != nil {
		return hbapi.TableName{}, nameError(n, err)
	}
	return n, nil
}

// ParseTableName parses "ns:qualifier" or a bare "qualifier" (in the default
// namespace) the way HBase's TableName.valueOf does, and validates both parts
// ([hbapi.TableName.Validate]). A failure is a *Error with Kind
// ErrInvalidName.
func ParseTableName(s string) (hbapi.TableName, error) {
	ns, q, ok := strings.Cut(s, ":")
	if !ok {
		return NewTableName(DefaultNamespace, s)
	}
	if ns == "" {
		return hbapi.TableName{}, &Error{Table: s, Field: "namespace", Reason: "must not be empty before ':'", Kind: ErrInvalidName}
	}
	return NewTableName(ns, q)
}

// nameError restates the client's name error in this package's
// vocabulary: Field "namespace" or "qualifier", the part as Value.
func nameError(n hbapi.TableName, err error) error {
	e := &Error{Table: n.String(), Reason: err.Error(), Kind: ErrInvalidName}
	var ie *hbapi.InvalidRequestError
	if errors.As(err, &ie) {
		e.Field, e.Reason = ie.Field, ie.Reason
		switch ie.Field {
		case "namespace":
			e.Value = n.Namespace
		case "qualifier":
			e.Value = n.Qualifier
		}
	}
	return e
}
