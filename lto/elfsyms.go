package lto

import (
	"bytes"
	"debug/elf"
	"fmt"
)

// objSym is one non-local symbol of an object.
type objSym struct {
	name    string
	defined bool // defined here (including common symbols)
	weak    bool
	common  bool // a common symbol (tentative definition)
	comdat  bool // defined in a section of a COMDAT group (C++ inline functions, templates)
}

// strong reports a definition that wins over weak and common ones.
func (s objSym) strong() bool { return s.defined && !s.weak && !s.common }

// elfSymbols returns the non-local named symbols of an ELF object.
func elfSymbols(data []byte) (syms []objSym, err error) {
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
