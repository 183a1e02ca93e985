package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Outcomes the network hid. A conditional data-row write whose answer was
// lost after it may have reached the server fails with
// hbase.ErrOutcomeUnknown (the client never reports it as a clean
// "condition failed"). The protocol settles it by reading the row back:
// an insert writes its record's token (schema.Record.Token) with the row,
// so a row holding the token at the write's version is the insert's own.
// docs/timeouts.md, "Outcomes", states what is promised.

// landing is what reading a data row back says of a write whose outcome
// was unknown.
type landing uint8

const (
	unread landing = iota // the read failed: the outcome stays unknown
	landed                // the row holds the write's own token at its version
	absent                // no live record: the write did not land (or was deleted since)
	taken                 // another write's record holds the row
)

// NewToken returns a fresh insert token (schema.Record.Token): 16 random
// bytes. A store that inserts one record under several keys in turn
// (dao.InsertUnique) keeps one token for all of them, so that Check can
// tell a record stored twice.
func NewToken() []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(make([]byte, 0, 16), rand.Uint64()), rand.Uint64())
}

func outcomeUnknown(err error) bool { return errors.Is(err, hbapi.ErrOutcomeUnknown) }

// tokenOf returns the insert token of data row r's current version, nil
// when it has none.
func (t *Table[T]) tokenOf(r *hbapi.Result) []byte {
	c, ok := r.Latest([]byte(t.fam), []byte(TokenQualifier))
	if !ok || c.Timestamp < t.Since(r) {
		return nil
	}
	return c.Value
}

// ownInsert reports whether row r holds the insert of it: its token, written
// with the row's current version. A token is drawn at random per insert,
// so no other write carries it.
func (t *Table[T]) ownInsert(it *item[T], r *hbapi.Result) bool {
	return it.enc != nil && len(it.enc.Token) > 0 && r != nil && bytes.Equal(t.tokenOf(r), it.enc.Token)
}

// readBackIf is readBack, with no round trip for no items.
func (t *Table[T]) readBackIf(ctx context.Context, items []*item[T]) []landing {
	if len(items) == 0 {
		return nil
	}
	return t.readBack(ctx, items)
}

// readBack reads the data rows of items, whose conditional writes'
// outcome is unknown, and judges each. An item without a token never
// reads as landed: its write is one a retry may repeat (a put, a delete).
func (t *Table[T]) readBack(ctx context.Context, items []*item[T]) []landing {
	out := make([]landing, len(items))
	gets := make([]hbapi.Action, len(items))
	for i, it := range items {
		gets[i] = &hbapi.Get{Table: t.name, Row: it.key}
	}
	res, err := t.c.Batch(ctx, gets)
	if err != nil && !isBatchError(err) || len(res) != len(items) {
		return out
	}
	for i, it := range items {
		if res[i].Err != nil {
			continue
		}
		d := t.readData(it.key, res[i].Result)
		var tok []byte
		if it.enc != nil {
			tok = it.enc.Token
		}
		switch {
		case len(tok) > 0 && bytes.Equal(t.tokenOf(res[i].Result), tok) && (d.verBytes == nil || d.version == it.v):
			out[i] = landed
		case !d.exists:
			out[i] = absent
		default:
			out[i] = taken
		}
	}
	return out
}

// dupWindowRows bounds the insert tokens Check remembers: those of the
// last dupWindowRows data rows, in key order. The copies of one record
// that dao.InsertUnique could leave differ only in the key's unique
// suffix, so they lie next to each other.
const dupWindowRows = 1 << 20

// dupWindow is the insert tokens of the data rows Check read last.
type dupWindow struct {
	seen map[string]struct{}
	ring []string
	next int
}

func newDupWindow() *dupWindow { return &dupWindow{seen: make(map[string]struct{})} }

// saw reports whether tok is among the remembered tokens, and remembers
// it.
func (w *dupWindow) saw(tok []byte) bool {
	k := string(tok)
	if _, ok := w.seen[k]; ok {
		return true
	}
	if len(w.ring) < dupWindowRows {
		w.ring = append(w.ring, k)
	} else {
		delete(w.seen, w.ring[w.next])
		w.ring[w.next] = k
		w.next = (w.next + 1) % dupWindowRows
	}
	w.seen[k] = struct{}{}
	return false
}
