package lto

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"github.com/gozyme/gozyme/toolchains"
)

// objSym is one non-local symbol of an object.
type objSym struct {
	name    string
	defined bool // defined here (including common symbols)
	weak    bool
	common  bool // a common symbol (tentative definition)
	comdat  bool // defined in a section of a COMDAT group (C++ inline functions, templates)
	unique  bool // STB_GNU_UNIQUE: one copy per process, never a duplicate
}

// strong reports a definition that wins over weak and common ones, and
// that the linker reports when another object defines it too.
func (s objSym) strong() bool { return s.defined && !s.weak && !s.common && !s.unique }

// elfSymbols returns the non-local named symbols of an ELF object, or of
// an LLVM bitcode file (a -flto object, read with llvm-nm).
func elfSymbols(data []byte) (syms []objSym, err error) {
	if IsBitcode(data) {
		return bitcodeFileSymbols(data)
	}
	defer func() {
		if p := recover(); p != nil {
			syms, err = nil, fmt.Errorf("corrupt ELF symbol table: %v", p)
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	es, err := f.Symbols()
	if err == elf.ErrNoSymbols {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, s := range es {
		bind := elf.ST_BIND(s.Info)
		if s.Name == "" || (bind != elf.STB_GLOBAL && bind != elf.STB_WEAK && bind != stbGNUUnique) {
			continue
		}
		sym := objSym{
			name:    s.Name,
			defined: s.Section != elf.SHN_UNDEF,
			weak:    bind == elf.STB_WEAK,
			common:  s.Section == elf.SHN_COMMON,
			unique:  bind == stbGNUUnique,
		}
		if i := int(s.Section); s.Section < elf.SHN_LORESERVE && i < len(f.Sections) {
			sym.comdat = f.Sections[i].Flags&elf.SHF_GROUP != 0
		}
		syms = append(syms, sym)
	}
	return syms, nil
}

// stbGNUUnique is STB_GNU_UNIQUE (STB_LOOS), which debug/elf does not name.
const stbGNUUnique = elf.SymBind(10)

// IsBitcode reports whether data is an LLVM bitcode file (raw or wrapped),
// as -flto objects are.
func IsBitcode(data []byte) bool {
	return bytes.HasPrefix(data, bcMagic) || len(data) >= 4 && binary.LittleEndian.Uint32(data) == bcWrapMagic
}

// bitcodeFileSymbols lists the global symbols of a bitcode file, from
// its symbol table (irsymtab.go), else with llvm-nm. Symbol tables are read from inside the input resolution and
// the grouping, which carry no context: so this one place reads the
// toolchain's configuration from the environment itself
// (toolchains.ConfigFromEnv), as the command's entry did.
func bitcodeFileSymbols(data []byte) ([]objSym, error) {
	if lines, err := irsymtabLines(data); err == nil {
		return append([]objSym{}, parseSymbolLines(lines)...), nil
	}
	f, err := os.CreateTemp("", "gozyme-nm-*.bc")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	out, err := toolchains.Run(toolchains.WithConfig(context.Background(), toolchains.ConfigFromEnv()), "llvm-nm", "--format=posix", f.Name())
	if err != nil {
		return nil, fmt.Errorf("unreadable bitcode: %v", strings.ReplaceAll(err.Error(), f.Name(), "<input>"))
	}
	syms := []objSym{}
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := nmSymbol(strings.Fields(line)); ok {
			syms = append(syms, s)
		}
	}
	return syms, nil
}

// nmSymbol reads the "NAME TYPE ..." fields of an llvm-nm --format=posix
// line, keeping global symbols (upper-case types, and w/v for weak ones).
func nmSymbol(f []string) (objSym, bool) {
	if len(f) < 2 || len(f[1]) != 1 {
		return objSym{}, false
	}
	t := f[1][0]
	weak := t == 'W' || t == 'V' || t == 'w' || t == 'v'
	if !weak && (t < 'A' || t > 'Z') {
		return objSym{}, false // a local symbol
	}
	return objSym{name: f[0], defined: t != 'U' && t != 'w' && t != 'v', weak: weak, common: t == 'C'}, true
}
