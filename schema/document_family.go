package schema

import "time"

// family returns the Family f declares, validated.
func (f DocFamily) family() (Family, error) {
	out := Family{
		Name:              f.Name,
		BloomFilter:       BloomType(f.BloomFilter),
		Versions:          f.Versions,
		MinVersions:       f.MinVersions,
		Compression:       Compression(f.Compression),
		TTL:               time.Duration(f.TTLSeconds) * time.Second,
		BlockSize:         f.BlockSize,
		InMemory:          switchPtr(f.InMemory),
		BlockCache:        switchPtr(f.BlockCache),
		DataBlockEncoding: Encoding(f.DataBlockEncoding),
	}
	if f.TTLSeconds < 0 || f.TTLSeconds > int64(Forever/time.Second) {
		return Family{}, &Error{Family: f.Name, Field: "ttl_seconds", Reason: "outside 1 ..= 2147483647", Kind: ErrInvalidOption}
	}
	if err := out.Validate(); err != nil {
		return Family{}, err
	}
	return out, nil
}

// docFamily is the document form of f: its declared options only.
func docFamily(f Family) DocFamily {
	return DocFamily{
		Name:              f.Name,
		BloomFilter:       string(f.BloomFilter),
		Versions:          f.Versions,
		MinVersions:       f.MinVersions,
		Compression:       string(f.Compression),
		TTLSeconds:        int64(f.TTL / time.Second),
		BlockSize:         f.BlockSize,
		InMemory:          boolOf(f.InMemory),
		BlockCache:        boolOf(f.BlockCache),
		DataBlockEncoding: string(f.DataBlockEncoding),
	}
}

func switchPtr(b *bool) Switch {
	switch {
	case b == nil:
		return Default
	case *b:
		return On
	}
	return Off
}

func boolOf(s Switch) *bool {
	switch s {
	case On:
		v := true
		return &v
	case Off:
		v := false
		return &v
	}
	return nil
}

// docFamilies converts families in both directions.
func docFamilies(fs []Family) []DocFamily {
	out := make([]DocFamily, len(fs))
	for i, f := range fs {
		out[i] = docFamily(f)
	}
	return out
}

func familiesOf(fs []DocFamily) ([]Family, error) {
	out := make([]Family, len(fs))
	for i, f := range fs {
		var err error
		if out[i], err = f.family(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
