package schema

import (
	"strconv"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// layout builds a key or qualifier layout and its From map.
func (b *docBuilder[T]) layout(path string, segs []DocSegment) (*keys.Layout[T], map[string]string, error) {
	var fields []keys.Field[T]
	from := map[string]string{}
	for i, s := range segs {
		p := path + "[" + strconv.Itoa(i) + "]"
		fs, err := b.segment(p, s)
		if err != nil {
			return nil, nil, err
		}
		fields = append(fields, fs...)
		for _, part := range append([]DocSegment{s}, s.Parts...) {
			if part.From != "" {
				from[part.Name] = part.From
			}
		}
	}
	l, err := keys.NewLayout(fields...)
	if err != nil {
		return nil, nil, &Error{Table: b.doc.Name, Field: path, Reason: "invalid layout", Kind: ErrInvalidDocument, Err: err}
	}
	if len(from) == 0 {
		from = nil
	}
	return l, from, nil
}

// segment builds the field (or, for joined, the fields) of one segment.
func (b *docBuilder[T]) segment(path string, s DocSegment) ([]keys.Field[T], error) {
	k, _ := lookupKind(s.Kind) // Check has checked it
	if k.name == "joined" {
		return b.joined(path, s)
	}
	f, err := b.field(path, s, k)
	if err != nil {
		return nil, err
	}
	return []keys.Field[T]{f}, nil
}

// field builds a segment of any kind but joined.
func (b *docBuilder[T]) field(path string, s DocSegment, k docKind) (keys.Field[T], error) {
	dec, src := s.decodes(k), s.source()
	switch k.value {
	case valNone:
		if k.kind == keys.KindLiteral {
			return keys.Literal[T](s.Name, s.Value), nil
		}
		set, err := b.bucketSet(path, s, dec)
		return keys.Salt(s.Name, s.Buckets, b.o.rand, set), err
	case valString:
		return b.stringField(path, s, k, src, dec)
	case valUint:
		return b.uintField(path, s, k, src, dec)
	case valInt:
		return b.intField(path, s, k, src, dec)
	case valMillis:
		get, set, err := b.millis(path, src)
		return millisField(s, k, get, only(set, dec)), err
	case valTime:
		get, set, err := b.time(path, src)
		loc, _ := time.LoadLocation(s.Zone)
		return keys.DateIn(s.Name, loc, get, only(set, dec)), err
	case valDuration:
		get, set, err := b.duration(path, src, s.Zone)
		if err == nil && dec && set == nil {
			err = docError(b.doc.Name, path+".decodable", "the time of day of a time cannot be decoded back into it")
		}
		return keys.ReversedTimeOfDay(s.Name, get, only(set, dec)), err
	}
	return b.custom(path, s, src, dec)
}

// only returns set when the segment decodes, else nil.
func only[S any](set S, dec bool) S {
	if !dec {
		var zero S
		return zero
	}
	return set
}

func (b *docBuilder[T]) stringField(path string, s DocSegment, k docKind, src string, dec bool) (keys.Field[T], error) {
	get, set, err := b.f.String(src)
	if err != nil {
		return keys.Field[T]{}, b.wrap(path, err)
	}
	set = only(set, dec)
	switch k.name {
	case "reversed_digits":
		return keys.ReversedDigits(s.Name, s.Width, get, set), nil
	case "digits":
		return keys.Digits(s.Name, s.Width, get, set), nil
	case "fixed":
		return keys.Fixed(s.Name, s.Width, byte(s.Pad), get, set), nil
	case "string":
		return keys.String(s.Name, get, set), nil
	case "trailing_string":
		return keys.TrailingString(s.Name, get, set), nil
	case "md5_hex":
		return keys.MD5Hex(s.Name, s.Width, get), nil
	case "md5":
		return keys.MD5(s.Name, s.Width, get), nil
	}
	bset, err := b.bucketSet(path, s, dec)
	switch k.name {
	case "hash_bucket":
		return keys.HashBucket(s.Name, s.Buckets, get, bset), err
	case "hash_bucket_byte":
		return keys.HashBucketByte(s.Name, s.Buckets, get, bset), err
	}
	rule, _ := keys.ParseJavaBucketRule(s.Rule)
	return keys.JavaHashBucket(s.Name, s.Buckets, rule, get, bset), err
}

func (b *docBuilder[T]) uintField(path string, s DocSegment, k docKind, src string, dec bool) (keys.Field[T], error) {
	if s.Modulo != 0 {
		get, err := b.modulo(path, src, s.Modulo)
		if dec {
			return keys.Field[T]{}, docError(b.doc.Name, path+".decodable", "a decimal computed with modulo cannot be decoded into its field")
		}
		return keys.Decimal(s.Name, s.Width, get, nil), err
	}
	get, set, err := b.uint(path, src)
	set = only(set, dec)
	switch k.name {
	case "decimal":
		return keys.Decimal(s.Name, s.Width, get, set), err
	case "unique":
		return keys.Unique(s.Name, s.Width, get, set), err
	}
	return keys.Uint64(s.Name, get, set), err
}

func (b *docBuilder[T]) intField(path string, s DocSegment, k docKind, src string, dec bool) (keys.Field[T], error) {
	get, set, err := b.int(path, src)
	if err != nil {
		return keys.Field[T]{}, err
	}
	switch k.name {
	case "java_partition":
		bset, err := b.bucketSet(path, s, dec)
		var pset func(*T, int64)
		if bset != nil {
			pset = func(r *T, v int64) { bset(r, int(v)) }
		}
		return keys.JavaPartition(s.Name, s.Buckets, get, pset), err
	case "java_int":
		return keys.JavaInt(s.Name, func(r *T) int32 { return int32(get(r)) },
			only(func(r *T, v int32) { set(r, int64(v)) }, dec)), nil
	case "java_short":
		return keys.JavaShort(s.Name, func(r *T) int16 { return int16(get(r)) },
			only(func(r *T, v int16) { set(r, int64(v)) }, dec)), nil
	case "java_long":
		return keys.JavaLong(s.Name, get, only(set, dec)), nil
	case "int64":
		return keys.Int64(s.Name, get, only(set, dec)), nil
	}
	return keys.Field[T]{}, nil // decimal_text is a joined part
}

func millisField[T any](s DocSegment, k docKind, get func(*T) int64, set func(*T, int64)) keys.Field[T] {
	span, _ := time.ParseDuration(s.Span)
	switch k.name {
	case "reversed_timestamp":
		return keys.ReversedTimestamp(s.Name, get, set)
	case "reversed_timestamp_binary":
		return keys.ReversedTimestampBinary(s.Name, get, set)
	case "time_base":
		return keys.TimeBase(s.Name, span, get, set)
	}
	return keys.TimeOffset(s.Name, span, get, set)
}

func (b *docBuilder[T]) joined(path string, s DocSegment) ([]keys.Field[T], error) {
	parts := make([]keys.Text[T], len(s.Parts))
	for i, p := range s.Parts {
		pp := path + ".parts[" + strconv.Itoa(i) + "]"
		k, _ := lookupKind(p.Kind)
		dec := p.decodes(k)
		if k.value == valString {
			get, set, err := b.f.String(p.source())
			if err != nil {
				return nil, b.wrap(pp, err)
			}
			parts[i] = keys.TextString(p.Name, get, only(set, dec))
			continue
		}
		get, set, err := b.int(pp, p.source())
		if err != nil {
			return nil, err
		}
		parts[i] = keys.TextInt(p.Name, get, only(set, dec))
	}
	return keys.Joined(s.Delimiter, parts...), nil
}

func (b *docBuilder[T]) custom(path string, s DocSegment, src string, dec bool) (keys.Field[T], error) {
	if s.Codec == "uid" {
		get, set, err := b.uint(path, src)
		return keys.Custom(s.Name, UIDCodec(s.Width), get, only(set, dec)), err
	}
	c, ok := b.o.codecs[s.Codec]
	if !ok {
		return keys.Field[T]{}, &Error{Table: b.doc.Name, Field: path + ".codec", Value: s.Codec,
			Reason: "custom codec not supplied (WithCodec)", Kind: ErrUnknownCodec}
	}
	if s.Width != 0 && c.width != s.Width {
		return keys.Field[T]{}, docError(b.doc.Name, path+".width", "codec "+s.Codec+" has width "+strconv.Itoa(c.width))
	}
	f, err := c.field(s.Name, b.f, src, dec)
	if err != nil {
		return f, b.wrap(path, err)
	}
	return f, nil
}
