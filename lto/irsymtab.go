package lto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The symbol table LLVM's bitcode writer puts in every bitcode file (the
// irsymtab: SYMTAB_BLOCK's blob, with names in the STRTAB_BLOCK after it)
// lists the symbols of the module as LLVM's ModuleSymbolTable sees them,
// with the same flags llvm-nm reads from the module itself. Read here, it
// spares the link an llvm-nm process; a table this reader does not know
// (another format version, another LLVM's producer, several modules, no
// table) is left to llvm-nm.

const (
	bitcodeStrtabBlock = 23
	bitcodeSymtabBlock = 25
	bitcodeModuleBlock = 8

	irsymtabVersion = 3 // storage::Header::kCurrentVersion of LLVM 14
	// irsymtabProducer is how the producers whose tables this reader
	// trusts begin (LLVM_VERSION_STRING of LLVM 14, the toolchain's).
	irsymtabProducer = "14."

	irsymHeaderSize = 4 + 8*4 // Version, Producer, Modules, Comdats, Symbols
	irsymSymbolSize = 24      // Name, IRName, ComdatIndex, Flags

	irsymUndefined      = 1 << 3
	irsymWeak           = 1 << 4
	irsymCommon         = 1 << 5
	irsymGlobal         = 1 << 10
	irsymFormatSpecific = 1 << 11
	irsymExecutable     = 1 << 13
)

var errNoIRSymtab = errors.New("no symbol table this reader knows")

// irsymtabLines lists the symbols of a bitcode file (raw or wrapped) from
// its irsymtab as llvm-nm --format=posix prints them ("NAME TYPE" lines,
// sorted by name, the format parseSymbolLines reads), or errNoIRSymtab.
func irsymtabLines(data []byte) (string, error) {
	raw, err := unwrapBitcode(data)
	if err != nil {
		return "", err
	}
	ids, blobs, err := bitcodeBlobs(raw, func(id uint64) bool { return id == bitcodeSymtabBlock || id == bitcodeStrtabBlock })
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoIRSymtab, err)
	}
	modules, symtab, strtab := 0, -1, -1
	for i, id := range ids {
		switch {
		case id == bitcodeModuleBlock:
			modules++
		case id == bitcodeSymtabBlock:
			symtab, strtab = i, -1
		case id == bitcodeStrtabBlock && symtab >= 0 && strtab < 0:
			strtab = i
		}
	}
	if modules != 1 || symtab < 0 || strtab < 0 {
		return "", errNoIRSymtab
	}
	return readIRSymtab(blobs[symtab], blobs[strtab])
}

// readIRSymtab reads an irsymtab's symbols (its storage::Header and
// storage::Symbol array) with the string table strtab.
func readIRSymtab(sym, strtab []byte) (string, error) {
	if len(sym) < irsymHeaderSize {
		return "", errNoIRSymtab
	}
	word := func(off int) uint32 { return binary.LittleEndian.Uint32(sym[off:]) }
	str := func(off, size uint32) (string, bool) {
		if uint64(off)+uint64(size) > uint64(len(strtab)) {
			return "", false
		}
		return string(strtab[off : off+size]), true
	}
	producer, ok := str(word(4), word(8))
	if word(0) != irsymtabVersion || !ok || !strings.HasPrefix(producer, irsymtabProducer) {
		return "", errNoIRSymtab
	}
	if modOff, modN := word(12), word(16); modN != 1 || uint64(modOff)+12 > uint64(len(sym)) {
		return "", errNoIRSymtab
	}
	off, n := word(28), word(32)
	if uint64(off)+uint64(n)*irsymSymbolSize > uint64(len(sym)) {
		return "", errNoIRSymtab
	}
	type entry struct {
		name string
		typ  byte
	}
	var out []entry
	for i := uint32(0); i < n; i++ {
		s := int(off) + int(i)*irsymSymbolSize
		name, ok := str(word(s), word(s+4))
		if !ok {
			return "", errNoIRSymtab
		}
		if t := nmTypeOf(word(s + 20)); t != 0 {
			out = append(out, entry{name, t})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	var b strings.Builder
	for _, e := range out {
		b.WriteString(e.name)
		b.WriteByte(' ')
		b.WriteByte(e.typ)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// nmTypeOf is the type letter llvm-nm prints for a symbol with irsymtab
// flags (its getNMTypeChar for IR: weak, undefined, common, then t or d,
// upper case when global), 0 for one it does not list (format-specific:
// llvm.* names, private symbols, llvm.metadata).
func nmTypeOf(flags uint32) byte {
	undef := flags&irsymUndefined != 0
	switch {
	case flags&irsymFormatSpecific != 0:
		return 0
	case flags&irsymWeak != 0:
		// llvm-nm's isObject is false for IR symbols: 'w', 'W' when defined.
		if undef {
			return 'w'
		}
		return 'W'
	case undef:
		return 'U'
	case flags&irsymCommon != 0:
		return 'C'
	}
	t := byte('d')
	if flags&irsymExecutable != 0 {
		t = 't'
	}
	if flags&irsymGlobal != 0 {
		t -= 'a' - 'A'
	}
	return t
}
