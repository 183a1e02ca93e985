package keys

import "strconv"

// Where finds the key prefix that a query naming record fields fixes, for
// SpreadRanges(lo, hi, spread, n): first the leading segments to spread (computed
// from fields the names leave out, not decodable, and Enumerable, such as a hash
// bucket of a field the query does not know), then the segments the names give, up to
// the first one they do not; literals are fixed by any query. A segment is given by a name equal to its own, or to the
// field source returns for it ("" when it is computed from none); source may be nil.
// Every name must be used by that prefix; otherwise, or with no name at all, Where
// returns an *Error naming the field and wrapping ErrBadConfig.
func (l *Layout[T]) Where(names []string, source func(segment string) string) (spread, n int, err error) {
	if len(names) == 0 {
		return 0, 0, configError("layout", "no field named")
	}
	if source == nil {
		source = func(string) string { return "" }
	}
	given := func(s Segment) string {
		for _, name := range names {
			if name == s.Name || name != "" && name == source(s.Name) {
				return name
			}
		}
		return ""
	}
	segs := l.segs
	for spread < len(segs) && given(segs[spread]) == "" && !segs[spread].Decodable && segs[spread].Enumerable() {
		spread++
	}
	used := make(map[string]bool)
	for n = spread; n < len(segs); n++ {
		if segs[n].Kind == KindLiteral {
			continue // constant: any query fixes it
		}
		name := given(segs[n])
		if name == "" {
			break
		}
		used[name] = true
	}
	for _, name := range names {
		if used[name] {
			continue
		}
		if n < len(segs) {
			return 0, 0, configError(name, "field "+strconv.Quote(name)+" is not in the key prefix the query fixes: key segment "+
				strconv.Quote(segs[n].Name)+" before it is neither named nor a bucket")
		}
		return 0, 0, configError(name, "field "+strconv.Quote(name)+" is not a key field")
	}
	return spread, n, nil
}
