package lto

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
)

// SHF_EXCLUDE: the linker drops sections carrying it from linked output.
const shfExclude = 0x80000000

// fatSections are the sections a fat object's embedded bitcode lives in.
var fatSections = map[string]bool{".llvmbc": true, ".llvmcmd": true}

// MarkFatObject sets SHF_EXCLUDE on every .llvmbc and .llvmcmd section of
// the ELF object at path, in place, so linkers drop them from executables
// and shared libraries (ld -r keeps them). An object without them is left
// untouched.
func MarkFatObject(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = markFat(f, path)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// markFat patches the section headers of the object open in f.
func markFat(f *os.File, name string) error {
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("%s: not a valid ELF object: %v", name, err)
	}
	order := ef.ByteOrder
	var hdr [64]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil && err != io.EOF {
		return fmt.Errorf("%s: reading ELF header: %v", name, err)
	}
	var shoff, shentsize int64
	var flagSize int
	switch ef.Class {
	case elf.ELFCLASS64:
		shoff = int64(order.Uint64(hdr[0x28:]))
		shentsize = int64(order.Uint16(hdr[0x3a:]))
		flagSize = 8
	case elf.ELFCLASS32:
		shoff = int64(order.Uint32(hdr[0x20:]))
		shentsize = int64(order.Uint16(hdr[0x2e:]))
		flagSize = 4
	default:
		return fmt.Errorf("%s: unknown ELF class %v", name, ef.Class)
	}
	for i, s := range ef.Sections {
		if !fatSections[s.Name] || s.Flags&shfExclude != 0 {
			continue
		}
		// sh_flags follows sh_name and sh_type (4 bytes each) in both classes.
		off := shoff + int64(i)*shentsize + 8
		buf := make([]byte, flagSize)
		if _, err := f.ReadAt(buf, off); err != nil {
			return fmt.Errorf("%s: reading section header %d: %v", name, i, err)
		}
		putFlags(order, buf, readFlags(order, buf)|shfExclude)
		if _, err := f.WriteAt(buf, off); err != nil {
			return fmt.Errorf("%s: writing section header %d: %v", name, i, err)
		}
	}
	return nil
}

func readFlags(order binary.ByteOrder, b []byte) uint64 {
	if len(b) == 8 {
		return order.Uint64(b)
	}
	return uint64(order.Uint32(b))
}

func putFlags(order binary.ByteOrder, b []byte, v uint64) {
	if len(b) == 8 {
		order.PutUint64(b, v)
		return
	}
	order.PutUint32(b, uint32(v))
}

// ReplaceSection gives the section called name of the ELF relocatable
// object at path new contents, in place: the bytes after the old contents
// move to follow the new ones, and the section headers and the section
// header table's offset move with them, so no stale copy stays in the file.
// It is how gozyme-cc adds to a fat object's embedded bitcode after clang
// wrote it.
func ReplaceSection(path, name string, data []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = replaceSection(f, path, name, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func replaceSection(f *os.File, path, name string, data []byte) error {
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("%s: not a valid ELF object: %v", path, err)
	}
	if ef.Class != elf.ELFCLASS64 {
		return fmt.Errorf("%s: only 64-bit ELF objects are supported", path)
	}
	if ef.Type != elf.ET_REL {
		// Segments would need moving too; gozyme-cc only rewrites objects.
		return fmt.Errorf("%s: not a relocatable object", path)
	}
	idx := -1
	for i, s := range ef.Sections {
		if s.Name == name {
			if idx >= 0 {
				return fmt.Errorf("%s: several %s sections", path, name)
			}
			idx = i
		}
	}
	if idx < 0 {
		return fmt.Errorf("%s: no %s section", path, name)
	}
	old, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	order := ef.ByteOrder
	shoff := int64(order.Uint64(old[0x28:]))
	shentsize := int64(order.Uint16(old[0x3a:]))
	sec := ef.Sections[idx]
	start, end := int64(sec.Offset), int64(sec.Offset+sec.FileSize)
	if sec.Type == elf.SHT_NOBITS || end > int64(len(old)) {
		return fmt.Errorf("%s: %s has no contents in the file", path, name)
	}
	// What follows the old contents is laid out again in file order, each
	// piece at the next offset its alignment allows (the section header
	// table's is 8): the result depends on the new contents and on what
	// follows, not on the old contents' size, so objects built in two
	// places stay byte-identical once their sections are.
	type piece struct {
		sec   int // section index, -1 for the section header table
		off   int64
		size  int64
		align int64
	}
	var after []piece
	for i, s := range ef.Sections {
		if i == idx || int64(s.Offset) < end || s.Type == elf.SHT_NULL {
			continue
		}
		size := int64(s.FileSize)
		if s.Type == elf.SHT_NOBITS {
			size = 0
		}
		after = append(after, piece{i, int64(s.Offset), size, int64(max(s.Addralign, 1))})
	}
	shtSize := int64(len(ef.Sections)) * shentsize
	if shoff >= end {
		after = append(after, piece{-1, shoff, shtSize, 8})
	}
	sort.SliceStable(after, func(i, j int) bool { return after[i].off < after[j].off })
	out := make([]byte, 0, int64(len(old))+int64(len(data)))
	out = append(out, old[:start]...)
	out = append(out, data...)
	newOff := map[int]int64{}
	for _, p := range after {
		for int64(len(out))%p.align != 0 {
			out = append(out, 0)
		}
		newOff[p.sec] = int64(len(out))
		if p.off+p.size > int64(len(old)) {
			return fmt.Errorf("%s: section %d runs past the end of the file", path, p.sec)
		}
		out = append(out, old[p.off:p.off+p.size]...)
	}
	if off, ok := newOff[-1]; ok {
		shoff = off
		order.PutUint64(out[0x28:], uint64(shoff))
	}
	for i := range ef.Sections {
		// sh_offset and sh_size of Elf64_Shdr are at 24 and 32.
		h := out[shoff+int64(i)*shentsize:]
		if i == idx {
			order.PutUint64(h[32:], uint64(len(data)))
		} else if off, ok := newOff[i]; ok {
			order.PutUint64(h[24:], uint64(off))
		}
	}
	if _, err := f.WriteAt(out, 0); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := f.Truncate(int64(len(out))); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// AddExcludedSections appends sections holding the given contents to the
// 64-bit ELF relocatable object at path, in place, with SHF_EXCLUDE (links
// drop them). Nothing else changes: the new section headers come after the
// existing ones (every section index stays), their names are appended to
// the section-name string table, and their contents go before the section
// header table, which must end the file (as clang and as write it). It is
// how gozyme-cc adds its bitcode beside what clang -fembed-bitcode put in
// .llvmbc, leaving the object otherwise as clang made it (llvm-objcopy
// would rewrite the symbol table and drop sh_link of .llvm_addrsig).
func AddExcludedSections(path string, names []string, contents [][]byte) error {
	return addSections(path, names, contents, shfExclude)
}

// addSections appends sections with the given flags (see
// AddExcludedSections).
func addSections(path string, names []string, contents [][]byte, flags uint64) error {
	ef, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: not a valid ELF object: %v", path, err)
	}
	class, typ, order := ef.Class, ef.Type, ef.ByteOrder
	ef.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if class != elf.ELFCLASS64 || typ != elf.ET_REL || len(data) < 64 {
		return fmt.Errorf("%s: not a 64-bit relocatable ELF object", path)
	}
	shstrndx := int(order.Uint16(data[0x3e:]))
	if ef, err = elf.NewFile(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("%s: not a valid ELF object: %v", path, err)
	}
	if shstrndx <= 0 || shstrndx >= len(ef.Sections) {
		return fmt.Errorf("%s: no section name table", path)
	}
	strtab := ef.Sections[shstrndx]
	old, err := strtab.Data()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	// Names first: the string table may move (ReplaceSection shifts what
	// follows it, the section header table included).
	grown := append([]byte(nil), old...)
	nameOff := make([]uint32, len(names))
	for i, n := range names {
		nameOff[i] = uint32(len(grown))
		grown = append(append(grown, n...), 0)
	}
	if err := ReplaceSection(path, strtab.Name, grown); err != nil {
		return err
	}
	if data, err = os.ReadFile(path); err != nil {
		return err
	}
	shoff := int64(order.Uint64(data[0x28:]))
	shentsize := int64(order.Uint16(data[0x3a:]))
	shnum := int64(order.Uint16(data[0x3c:]))
	if shentsize != 64 || shoff+shnum*shentsize != int64(len(data)) || shnum == 0 || shnum+int64(len(names)) >= int64(elf.SHN_LORESERVE) {
		return fmt.Errorf("%s: the section header table does not end the file", path)
	}
	table := append([]byte(nil), data[shoff:]...)
	out := append([]byte(nil), data[:shoff]...)
	for i, c := range contents {
		off := len(out)
		out = append(out, c...)
		h := make([]byte, 64)
		order.PutUint32(h[0:], nameOff[i])
		order.PutUint32(h[4:], uint32(elf.SHT_PROGBITS))
		order.PutUint64(h[8:], flags)
		order.PutUint64(h[24:], uint64(off))
		order.PutUint64(h[32:], uint64(len(c)))
		order.PutUint64(h[48:], 1) // sh_addralign
		table = append(table, h...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	order.PutUint64(out[0x28:], uint64(len(out)))
	order.PutUint16(out[0x3c:], uint16(shnum+int64(len(names))))
	out = append(out, table...)
	return os.WriteFile(path, out, 0o644)
}

// keepUserBitcode gives the object at out, which replaces the inputs
// members in the link, the bitcode sections the user asked clang to embed
// in them (-fembed-bitcode; gozyme's own live in .gozyme.bc then): their
// .llvmbc and .llvmcmd contents, concatenated in link order as the linker
// would have put them in the output.
func keepUserBitcode(out string, members []*Input) error {
	var bc, cmd []byte
	found := false
	for _, m := range members {
		if m.LTO || BitcodeSectionOf(bytes.NewReader(m.Data)) != BitcodeSection {
			continue
		}
		found = true
		for _, s := range []struct {
			name string
			to   *[]byte
		}{{".llvmbc", &bc}, {".llvmcmd", &cmd}} {
			b, err := SectionBytes(bytes.NewReader(m.Data), m.Origin, s.name)
			if err != nil {
				return err
			}
			*s.to = append(*s.to, b...)
		}
	}
	if !found {
		return nil
	}
	return addSections(out, []string{".llvmbc", ".llvmcmd"}, [][]byte{bc, cmd}, 0)
}
