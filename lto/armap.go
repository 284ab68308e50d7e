package lto

import "encoding/binary"

// armapEntry is one symbol of an archive's GNU symbol index: its name and
// the header offset of the member defining it.
type armapEntry struct {
	name   string
	offset int
}

// parseArmap reads a GNU symbol index ("/": 32-bit big-endian count and
// offsets; "/SYM64/": 64-bit), then the names, NUL-terminated. A table
// that does not hold together gives nil: the archive is then read as one
// without an index.
func parseArmap(data []byte, wide bool) []armapEntry {
	w := 4
	if wide {
		w = 8
	}
	word := func(b []byte) uint64 {
		if wide {
			return binary.BigEndian.Uint64(b)
		}
		return uint64(binary.BigEndian.Uint32(b))
	}
	if len(data) < w {
		return nil
	}
	n := word(data)
	if n > uint64(len(data)/w) || uint64(w)*(n+1) > uint64(len(data)) {
		return nil
	}
	names := string(data[w*(int(n)+1):]) // one copy; the entries' names share it
	entries := make([]armapEntry, n)
	pos := 0
	for i := range entries {
		off := word(data[w*(i+1):])
		end := pos
		for end < len(names) && names[end] != 0 {
			end++
		}
		if end >= len(names) || off > uint64(^uint(0)>>1) {
			return nil
		}
		entries[i] = armapEntry{name: names[pos:end], offset: int(off)}
		pos = end + 1
	}
	return entries
}

// indexedSymbols returns, for each member the archive's symbol index
// names, the symbols it defines there, in the index's order; nil when the
// archive has no index (or one naming no member).
func (a *Archive) indexedSymbols() map[*Member][]string {
	if len(a.armap) == 0 {
		return nil
	}
	byOffset := make(map[int]*Member, len(a.Members))
	for _, m := range a.Members {
		byOffset[m.Offset] = m
	}
	out := map[*Member][]string{}
	for _, e := range a.armap {
		if m := byOffset[e.offset]; m != nil {
			out[m] = append(out[m], e.name)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
