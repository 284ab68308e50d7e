package lto

import (
	"debug/elf"
	"encoding/binary"
)

// dynTable answers whether a shared library defines a symbol from the
// library's own GNU hash table (.gnu.hash over .dynsym and .dynstr), the
// way the dynamic loader looks names up: a link asks about the few dozen
// names its objects leave undefined, where reading every dynamic symbol
// of libc and libstdc++ into a map cost most of a relink's resolution.
type dynTable struct {
	syms, strs          []byte // .dynsym, .dynstr
	buckets, chain      []byte // .gnu.hash's buckets and chain, 32-bit words
	nbuckets, symoffset uint32
	order               binary.ByteOrder
}

// newDynTable reads the tables of a 64-bit shared library; nil when it has
// no GNU hash table or one that does not hold together (the caller then
// reads the dynamic symbols one by one).
func newDynTable(f *elf.File) *dynTable {
	if f.Class != elf.ELFCLASS64 {
		return nil
	}
	hash, syms := f.Section(".gnu.hash"), f.Section(".dynsym")
	if hash == nil || syms == nil || hash.Type == elf.SHT_NOBITS || syms.Type == elf.SHT_NOBITS || syms.Link >= uint32(len(f.Sections)) {
		return nil
	}
	strs := f.Sections[syms.Link]
	h, err1 := hash.Data()
	s, err2 := syms.Data()
	str, err3 := strs.Data()
	if err1 != nil || err2 != nil || err3 != nil || len(h) < 16 {
		return nil
	}
	t := &dynTable{syms: s, strs: str, order: f.ByteOrder}
	t.nbuckets, t.symoffset = t.order.Uint32(h), t.order.Uint32(h[4:])
	bloom := uint64(t.order.Uint32(h[8:])) * 8 // 64-bit bloom words, skipped
	rest := uint64(len(h) - 16)
	if t.nbuckets == 0 || bloom > rest || uint64(t.nbuckets)*4 > rest-bloom {
		return nil
	}
	t.buckets = h[16+bloom : 16+bloom+uint64(t.nbuckets)*4]
	t.chain = h[16+bloom+uint64(t.nbuckets)*4:]
	return t
}

// defines reports whether the library defines name: a dynamic symbol of
// that name (of any version) with a section and a global, weak or unique
// binding.
func (t *dynTable) defines(name string) bool {
	h := uint32(5381)
	for i := 0; i < len(name); i++ {
		h = h*33 + uint32(name[i])
	}
	idx := t.order.Uint32(t.buckets[h%t.nbuckets*4:])
	if idx == 0 || idx < t.symoffset {
		return false
	}
	for ; ; idx++ {
		c := uint64(idx-t.symoffset) * 4
		if c+4 > uint64(len(t.chain)) {
			return false
		}
		ch := t.order.Uint32(t.chain[c:])
		if ch|1 == h|1 && t.definedAs(idx, name) {
			return true
		}
		if ch&1 != 0 {
			return false
		}
	}
}

// definedAs reports whether dynamic symbol idx is named name and defined
// with a non-local binding.
func (t *dynTable) definedAs(idx uint32, name string) bool {
	off := uint64(idx) * 24 // Elf64_Sym: name u32, info u8, other u8, shndx u16, value, size
	if off+24 > uint64(len(t.syms)) {
		return false
	}
	sym := t.syms[off : off+24]
	n := uint64(t.order.Uint32(sym))
	if n+uint64(len(name)) >= uint64(len(t.strs)) || string(t.strs[n:n+uint64(len(name))]) != name || t.strs[n+uint64(len(name))] != 0 {
		return false
	}
	bind := elf.ST_BIND(sym[4])
	return elf.SectionIndex(t.order.Uint16(sym[6:])) != elf.SHN_UNDEF && bind != elf.STB_LOCAL
}
