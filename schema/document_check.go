package schema

import (
	"encoding/hex"
	"slices"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// fieldTypes are the field types of a document, the accessors of Fields.
var fieldTypes = []string{"string", "bytes", "int64", "uint64", "float64", "bool", "time", "duration"}

// Check reports the first problem of the document that needs no record
// type to see: the version, unknown kinds and types, missing or unused
// parameters, and references to undeclared fields. Errors are *Error
// values with Kind ErrInvalidDocument (ErrDocumentVersion for the version)
// whose Field is the path of the value. FromDocument checks the rest.
func (d Document) Check() error {
	if d.Version != DocumentVersion {
		return &Error{Table: d.Name, Field: "version", Value: strconv.Itoa(d.Version),
			Reason: "this package reads version " + strconv.Itoa(DocumentVersion), Kind: ErrDocumentVersion}
	}
	c := docChecker{table: d.Name, fields: map[string]string{}}
	if err := c.check(d); err != nil {
		return err
	}
	return nil
}

// docChecker checks one document; fields maps each field to its type.
type docChecker struct {
	table  string
	fields map[string]string
}

func (c *docChecker) fail(path, reason string) error { return docError(c.table, path, reason) }

func (c *docChecker) check(d Document) error {
	if _, err := ParseTableName(d.Name); err != nil {
		return c.fail("name", "not a table name: "+err.Error())
	}
	if err := c.families("families", d.Families); err != nil {
		return err
	}
	for i, f := range d.Fields {
		path := "fields[" + strconv.Itoa(i) + "]"
		switch {
		case f.Name == "":
			return c.fail(path+".name", "missing")
		case c.has(f.Name):
			return c.fail(path+".name", "field "+strconv.Quote(f.Name)+" declared twice")
		case f.Type != "" && !slices.Contains(fieldTypes, f.Type):
			return c.fail(path+".type", "unknown type "+strconv.Quote(f.Type))
		}
		c.fields[f.Name] = f.Type
	}
	if err := c.layout("key", d.Key); err != nil {
		return err
	}
	if err := c.columns("columns", d.Columns); err != nil {
		return err
	}
	if err := c.splits("splits", d.Splits); err != nil {
		return err
	}
	if d.Writes != "" {
		if _, err := ParseWriteMode(d.Writes); err != nil {
			return c.fail("writes", "unknown write mode "+strconv.Quote(d.Writes))
		}
	}
	if err := c.uids(d.UIDs); err != nil {
		return err
	}
	for i, ix := range d.Indexes {
		if err := c.index("indexes["+strconv.Itoa(i)+"]", ix); err != nil {
			return err
		}
	}
	return c.wide(d)
}

func (c *docChecker) has(field string) bool {
	_, ok := c.fields[field]
	return ok
}

func (c *docChecker) families(path string, fs []DocFamily) error {
	if len(fs) == 0 {
		return c.fail(path, "missing: a table needs at least one column family")
	}
	for i, f := range fs {
		if _, err := f.family(); err != nil {
			return c.fail(path+"["+strconv.Itoa(i)+"]", err.Error())
		}
	}
	return nil
}

// layout checks the segments of a key or qualifier layout.
func (c *docChecker) layout(path string, segs []DocSegment) error {
	if len(segs) == 0 {
		return c.fail(path, "missing: a layout needs at least one segment")
	}
	for i, s := range segs {
		if err := c.segment(path+"["+strconv.Itoa(i)+"]", s, false); err != nil {
			return err
		}
	}
	return nil
}

func (c *docChecker) segment(path string, s DocSegment, part bool) error {
	k, ok := lookupKind(s.Kind)
	switch {
	case s.Kind == "":
		return c.fail(path+".kind", "missing")
	case !ok:
		return c.fail(path+".kind", "unknown segment kind "+strconv.Quote(s.Kind))
	case part && k.kind != keys.KindText && k.kind != keys.KindDecimalText:
		return c.fail(path+".kind", "a joined part is text or decimal_text, not "+s.Kind)
	case s.Name == "" && k.name != "joined":
		return c.fail(path+".name", "missing")
	}
	set := s.paramsSet()
	for _, p := range k.need {
		if !slices.Contains(set, p) {
			return c.fail(path+"."+p, "missing: kind "+s.Kind+" needs it")
		}
	}
	for _, p := range set {
		if !slices.Contains(k.need, p) && !slices.Contains(k.may, p) {
			return c.fail(path+"."+p, "kind "+s.Kind+" takes no "+p)
		}
	}
	if err := c.params(path, s); err != nil {
		return err
	}
	for i, p := range s.Parts {
		if err := c.segment(path+".parts["+strconv.Itoa(i)+"]", p, true); err != nil {
			return err
		}
	}
	if k.value != valNone && !c.has(s.source()) {
		at := path + ".name"
		if s.From != "" {
			at = path + ".from"
		}
		return c.fail(at, "field "+strconv.Quote(s.source())+" is not declared in fields")
	}
	if s.decodes(k) && k.hash && !c.has(s.Name) {
		return c.fail(path+".name", "a decodable "+s.Kind+" writes its value to field "+strconv.Quote(s.Name)+", which is not declared")
	}
	return nil
}

// params checks the values of the parameters a segment sets.
func (c *docChecker) params(path string, s DocSegment) error {
	if s.Pad < 0 || s.Pad > 255 {
		return c.fail(path+".pad", "want a byte, 0 to 255")
	}
	if s.Zone != "" {
		if _, err := time.LoadLocation(s.Zone); err != nil {
			return c.fail(path+".zone", "unknown zone "+strconv.Quote(s.Zone))
		}
	}
	if s.Span != "" {
		if _, err := time.ParseDuration(s.Span); err != nil {
			return c.fail(path+".span", "want a duration such as \"5m0s\"")
		}
	}
	if s.Rule != "" {
		if _, err := keys.ParseJavaBucketRule(s.Rule); err != nil {
			return c.fail(path+".rule", "unknown rule "+strconv.Quote(s.Rule)+" (want mask, abs or floormod)")
		}
	}
	return nil
}

func (c *docChecker) columns(path string, cols []DocColumn) error {
	for i, col := range cols {
		p := path + "[" + strconv.Itoa(i) + "]"
		if err := c.column(p, col); err != nil {
			return err
		}
	}
	return nil
}

func (c *docChecker) column(path string, col DocColumn) error {
	switch {
	case col.Name == "":
		return c.fail(path+".name", "missing")
	case !c.has(col.Name):
		return c.fail(path+".name", "field "+strconv.Quote(col.Name)+" is not declared in fields")
	case col.Family == "":
		return c.fail(path+".family", "missing")
	}
	if col.Type != "" {
		if _, err := ParseColumnType(col.Type); err != nil {
			return c.fail(path+".type", "unknown column type "+strconv.Quote(col.Type))
		}
	}
	return nil
}

func (c *docChecker) splits(path string, s *DocSplits) error {
	if s == nil {
		return nil
	}
	n := 0
	for _, set := range []bool{s.Regions != 0, len(s.Keys) > 0, len(s.HexKeys) > 0} {
		if set {
			n++
		}
	}
	if n != 1 {
		return c.fail(path, "set exactly one of regions, keys and hex_keys")
	}
	if s.Regions < 0 {
		return c.fail(path+".regions", "negative")
	}
	for i, h := range s.HexKeys {
		if _, err := hex.DecodeString(h); err != nil {
			return c.fail(path+".hex_keys["+strconv.Itoa(i)+"]", "not hex")
		}
	}
	return nil
}

func (c *docChecker) uids(us []DocUID) error {
	for i, u := range us {
		path := "uids[" + strconv.Itoa(i) + "]"
		switch {
		case u.Segment == "":
			return c.fail(path+".segment", "missing")
		case !c.has(u.Field):
			return c.fail(path+".field", "field "+strconv.Quote(u.Field)+" is not declared in fields")
		case u.Width == 0:
			return c.fail(path+".width", "missing")
		}
	}
	return nil
}

func (c *docChecker) index(path string, ix DocIndex) error {
	if _, err := ParseTableName(ix.Name); err != nil {
		return c.fail(path+".name", "not a table name: "+err.Error())
	}
	if err := c.families(path+".families", ix.Families); err != nil {
		return err
	}
	if err := c.layout(path+".key", ix.Key); err != nil {
		return err
	}
	if err := c.splits(path+".splits", ix.Splits); err != nil {
		return err
	}
	if len(ix.Qualifier) > 0 {
		return c.layout(path+".qualifier", ix.Qualifier)
	}
	return nil
}

func (c *docChecker) wide(d Document) error {
	if d.Wide == nil {
		return nil
	}
	switch {
	case len(d.Columns) > 0:
		return c.fail("columns", "a wide table has one value column (wide.value), no columns")
	case len(d.Indexes) > 0:
		return c.fail("indexes", "a wide table has no indexes")
	}
	if err := c.layout("wide.qualifier", d.Wide.Qualifier); err != nil {
		return err
	}
	return c.column("wide.value", d.Wide.Value)
}
