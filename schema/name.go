package schema

import "strings"

// Namespaces HBase creates by itself.
const (
	// DefaultNamespace is where a table goes when its name has no namespace.
	DefaultNamespace = "default"
	// SystemNamespace holds HBase's own tables (hbase:meta, …).
	SystemNamespace = "hbase"
)

// disallowedQualifier is the one table qualifier HBase refuses in every
// namespace (TableName.DISALLOWED_TABLE_NAME).
const disallowedQualifier = "zookeeper"

// TableName is an HBase table name: a namespace and a qualifier. The zero
// Namespace means DefaultNamespace.
type TableName struct {
	Namespace string
	Qualifier string
}

// NewTableName returns the validated name ns:qualifier. An empty ns means
// DefaultNamespace.
func NewTableName(ns, qualifier string) (TableName, error) {
	n := TableName{Namespace: ns, Qualifier: qualifier}
	if n.Namespace == "" {
		n.Namespace = DefaultNamespace
	}
	if err := n.Validate(); err != nil {
		return TableName{}, err
	}
	return n, nil
}

// ParseTableName parses "ns:qualifier" or a bare "qualifier" (in the default
// namespace) the way HBase's TableName.valueOf does, and validates both parts.
func ParseTableName(s string) (TableName, error) {
	ns, q, ok := strings.Cut(s, ":")
	if !ok {
		return NewTableName(DefaultNamespace, s)
	}
	if ns == "" {
		return TableName{}, &Error{Table: s, Field: "namespace", Reason: "must not be empty before ':'", Kind: ErrInvalidName}
	}
	return NewTableName(ns, q)
}

// String formats the name as HBase does (TableName.getNameAsString): the bare
// qualifier in the default namespace, "ns:qualifier" otherwise.
func (n TableName) String() string {
	if n.Namespace == "" || n.Namespace == DefaultNamespace {
		return n.Qualifier
	}
	return n.Namespace + ":" + n.Qualifier
}

// FullName always includes the namespace: "default:t" for a default table.
func (n TableName) FullName() string {
	ns := n.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return ns + ":" + n.Qualifier
}

// Validate checks the name with HBase's rules, restricted to ASCII: the
// namespace is [A-Za-z0-9_]+, the qualifier is [A-Za-z0-9_.-]+ and does not
// start with '.' or '-', and is not "zookeeper". (HBase also accepts
// non-ASCII letters and digits; hbkit does not, so names stay portable
// across shells and file systems.)
func (n TableName) Validate() error {
	ns := n.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	for i := 0; i < len(ns); i++ {
		if c := ns[i]; !isAlnum(c) && c != '_' {
			return &Error{Table: n.String(), Field: "namespace", Value: ns,
				Reason: "may only contain [A-Za-z0-9_]", Kind: ErrInvalidName}
		}
	}
	q := n.Qualifier
	switch {
	case q == "":
		return &Error{Table: n.String(), Field: "qualifier", Reason: "must not be empty", Kind: ErrInvalidName}
	case q[0] == '.' || q[0] == '-':
		return &Error{Table: n.String(), Field: "qualifier", Value: q,
			Reason: "must not start with '.' or '-'", Kind: ErrInvalidName}
	case q == disallowedQualifier:
		return &Error{Table: n.String(), Field: "qualifier", Value: q,
			Reason: "is reserved by HBase", Kind: ErrInvalidName}
	}
	for i := 0; i < len(q); i++ {
		if c := q[i]; !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			return &Error{Table: n.String(), Field: "qualifier", Value: q,
				Reason: "may only contain [A-Za-z0-9_.-]", Kind: ErrInvalidName}
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
