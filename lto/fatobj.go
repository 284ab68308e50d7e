package lto

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
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

// ReplaceSection gives the section called name of the ELF object at path
// new contents, in place: they are appended to the file (the old bytes stay,
// unused) and the section header is pointed at them. It is how gozyme-cc
// adds to a fat object's embedded bitcode after clang wrote it.
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
	st, err := f.Stat()
	if err != nil {
		return err
	}
	align := int64(ef.Sections[idx].Addralign)
	if align < 1 {
		align = 1
	}
	off := (st.Size() + align - 1) / align * align
	if _, err := f.WriteAt(data, off); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	var hdr [64]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return fmt.Errorf("%s: reading ELF header: %v", path, err)
	}
	order := ef.ByteOrder
	shoff := int64(order.Uint64(hdr[0x28:]))
	shentsize := int64(order.Uint16(hdr[0x3a:]))
	// sh_offset and sh_size of Elf64_Shdr are at 24 and 32.
	var buf [16]byte
	order.PutUint64(buf[0:], uint64(off))
	order.PutUint64(buf[8:], uint64(len(data)))
	if _, err := f.WriteAt(buf[:], shoff+int64(idx)*shentsize+24); err != nil {
		return fmt.Errorf("%s: writing section header %d: %v", path, idx, err)
	}
	return nil
}
