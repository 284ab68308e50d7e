package lto

import (
	"bytes"
	"debug/elf"
	"fmt"
)

// weakenSymbols returns a copy of an ELF relocatable object in which the
// global definitions of the named symbols are weak: another object's
// strong definition (the link's rewritten code, see cut.go) then wins every
// reference the linker resolves by name, this object's own included. It
// reports how many it changed; the object's layout is untouched (only the
// binding in st_info changes).
func weakenSymbols(data []byte, names map[string]bool) ([]byte, int, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, 0, err
	}
	entSize, infoOff := 24, 4
	if f.Class == elf.ELFCLASS32 {
		entSize, infoOff = 16, 12
	}
	out := append([]byte(nil), data...)
	n := 0
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_SYMTAB || int(sec.Link) >= len(f.Sections) {
			continue
		}
		strs, err := f.Sections[sec.Link].Data()
		if err != nil {
			return nil, 0, err
		}
		if sec.Offset+sec.Size > uint64(len(data)) {
			return nil, 0, fmt.Errorf("symbol table past the end of the object")
		}
		for off := uint64(entSize); off+uint64(entSize) <= sec.Size; off += uint64(entSize) {
			ent := out[sec.Offset+off : sec.Offset+off+uint64(entSize)]
			nameOff := f.ByteOrder.Uint32(ent)
			var shndx uint16
			if f.Class == elf.ELFCLASS32 {
				shndx = f.ByteOrder.Uint16(ent[14:])
			} else {
				shndx = f.ByteOrder.Uint16(ent[6:])
			}
			info := ent[infoOff]
			if elf.ST_BIND(info) != elf.STB_GLOBAL || shndx == uint16(elf.SHN_UNDEF) || int(nameOff) >= len(strs) {
				continue
			}
			end := bytes.IndexByte(strs[nameOff:], 0)
			if end < 0 || !names[string(strs[nameOff:int(nameOff)+end])] {
				continue
			}
			ent[infoOff] = byte(elf.STB_WEAK)<<4 | info&0xf
			n++
		}
	}
	return out, n, nil
}
