package schema

import "fmt"

// WriteMode says how the records of a table with indexes are written, and
// so what its index entries guarantee (package index argues each mode).
// It is chosen per schema (Spec.Writes); the zero value is Strict.
type WriteMode uint8

const (
	// Strict: every write reads the data row and writes it with a
	// conditional write on its version; a verified entry always agrees
	// with its data row, even across crashes, so counts from the index
	// alone are exact. The most expensive mode.
	Strict WriteMode = iota
	// Mutable: records are updated, moved and deleted without a
	// conditional write or a read first; each write stamps all its cells
	// with one version, so a late write loses to a newer one whatever the
	// arrival order, and a read after the write removes the entries that
	// older values and overtaken writers left. Readers that fetch the
	// data row are always right; counts from the index alone can include
	// such an entry until that read has run (or, if the writer died,
	// until Check repairs it).
	Mutable
	// InsertOnly: a key is never written again with other values
	// (messages, log events, order lines). A put is the data row's
	// conditional write and its entries in one round trip, with no read;
	// a put over a live record with other values (a rewrite or a move)
	// fails (index.ErrInsertOnly), the same record again succeeds.
	// Inserts fail on a taken key; deletes read the row to find its
	// entries.
	InsertOnly
	// VerifyOnRead: records are updated, moved and deleted with one
	// round trip and no read: the data row and its new entries, written
	// unverified, as a dual write would. Nothing removes the entry a
	// moved or deleted record leaves behind at write time: readers, who
	// fetch every entry's data row, skip it and delete it when they meet
	// it, and Check removes the rest. Counts from the index alone cost a
	// Get of each entry's data row, like a read. For write-heavy tables
	// whose queries fetch the records anyway.
	VerifyOnRead
)

// modes lists every write mode, in declaration order.
var modes = []WriteMode{Strict, Mutable, InsertOnly, VerifyOnRead}

// Valid reports whether m is one of the declared write modes.
func (m WriteMode) Valid() bool { return int(m) < len(modes) }

func (m WriteMode) String() string {
	switch m {
	case Strict:
		return "strict"
	case Mutable:
		return "mutable"
	case InsertOnly:
		return "insert-only"
	case VerifyOnRead:
		return "verify-on-read"
	}
	return fmt.Sprintf("WriteMode(%d)", uint8(m))
}

// ParseWriteMode parses "strict", "mutable", "insert-only" or
// "verify-on-read".
func ParseWriteMode(s string) (WriteMode, error) {
	for _, m := range modes {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, &Error{Field: "writes", Reason: fmt.Sprintf("unknown write mode %q (want strict, mutable, insert-only or verify-on-read)", s), Kind: ErrInvalidTable}
}

// WriteMode returns how the table's records are written (Spec.Writes).
func (t *Table[T]) WriteMode() WriteMode { return t.writes }
