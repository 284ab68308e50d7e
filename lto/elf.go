package lto

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Embedded is what a fat object carries besides its machine code.
type Embedded struct {
	Bitcode []byte   // contents of .llvmbc; nil when the object has none
	CC1Args []string // .llvmcmd split at NULs; nil when absent
}

// The sections gozyme's own bitcode lives in when the user asked clang to
// embed bitcode too (-fembed-bitcode): clang's .llvmbc and .llvmcmd are
// then the user's, kept as clang makes them.
const (
	BitcodeSection = ".gozyme.bc"
	CmdSection     = ".gozyme.cmd"
)

// ReadEmbedded reads the embedded bitcode of the ELF object in r: gozyme's
// sections (.gozyme.bc, .gozyme.cmd) when it has them, else .llvmbc and
// .llvmcmd. origin names the object in errors ("dir/a.o", "lib.a(a.o)").
// An object whose bitcode section holds, or is split into, several modules
// is an error: such bitcode comes from a relocatable link (ld -r) or a
// second --add-section.
func ReadEmbedded(r io.ReaderAt, origin string) (Embedded, error) {
	f, err := openELF(r, origin)
	if err != nil {
		return Embedded{}, err
	}
	bcName, cmdName := ".llvmbc", ".llvmcmd"
	for _, s := range f.Sections {
		if s.Name == BitcodeSection {
			bcName, cmdName = BitcodeSection, CmdSection
		}
	}
	bc, err := sectionData(f, origin, bcName)
	if err != nil {
		return Embedded{}, err
	}
	if bc != nil {
		n, err := countModules(bc)
		if err != nil {
			return Embedded{}, fmt.Errorf("%s: corrupt %s section: %v", origin, bcName, err)
		}
		if n > 1 {
			return Embedded{}, fmt.Errorf("%s: %s holds %d concatenated bitcode modules (from ld -r?); link the original objects instead", origin, bcName, n)
		}
	}
	cmd, err := sectionData(f, origin, cmdName)
	if err != nil {
		return Embedded{}, err
	}
	return Embedded{Bitcode: bc, CC1Args: splitCmd(cmd)}, nil
}

// BitcodeSectionOf names the section holding gozyme's bitcode in the ELF
// object in r: .gozyme.bc when it has one, else .llvmbc.
func BitcodeSectionOf(r io.ReaderAt) string {
	if f, err := openELF(r, ""); err == nil {
		for _, s := range f.Sections {
			if s.Name == BitcodeSection {
				return BitcodeSection
			}
		}
	}
	return ".llvmbc"
}

// LinkTimeArgs keeps, of a compile's cc1 (or flang fc1) arguments, those
// the link reads (optimization level, optnone, relocation model, sections,
// target): none names a file or directory, so the object does not depend
// on where it was built (the full command line holds the working
// directory and every -I).
func LinkTimeArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case i == 0 && (a == "-cc1" || a == "-fc1"):
		case a == "-triple" || a == "-mrelocation-model" || a == "-pic-level" || a == "-target-cpu" || a == "-target-feature" || a == "-tune-cpu":
			if i+1 < len(args) {
				out = append(out, a, args[i+1])
				i++
			}
			continue
		case strings.HasPrefix(a, "-O"), a == "-disable-O0-optnone", a == "-pic-is-pie",
			a == "-ffunction-sections", a == "-fdata-sections", strings.HasPrefix(a, "-mframe-pointer="):
		default:
			continue
		}
		out = append(out, a)
	}
	return out
}

// CleanCmdSection rewrites the command-line section name of the object at
// path (.llvmcmd or .gozyme.cmd) to hold only LinkTimeArgs, in place.
func CleanCmdSection(path, name string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cmd, err := SectionBytes(bytes.NewReader(data), path, name)
	if err != nil || cmd == nil {
		return err
	}
	kept := LinkTimeArgs(splitCmd(cmd))
	return ReplaceSection(path, name, []byte(strings.Join(kept, "\x00")+"\x00"))
}

// SectionBytes returns the contents of the section called name in the ELF
// object in r, or nil when there is none. Several sections of that name are
// an error.
func SectionBytes(r io.ReaderAt, origin, name string) ([]byte, error) {
	f, err := openELF(r, origin)
	if err != nil {
		return nil, err
	}
	return sectionData(f, origin, name)
}

// openELF parses an ELF header, turning parse errors and panics into errors
// that name the object.
func openELF(r io.ReaderAt, origin string) (f *elf.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("%s: corrupt ELF file: %v", origin, p)
		}
	}()
	f, err = elf.NewFile(r)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: truncated ELF file", origin)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid ELF object: %v", origin, err)
	}
	return f, nil
}

// sectionData reads the one section called name. elf.File.Section would
// return only the first of several, so every section header is checked.
func sectionData(f *elf.File, origin, name string) ([]byte, error) {
	var found []*elf.Section
	for _, s := range f.Sections {
		if s.Name == name {
			found = append(found, s)
		}
	}
	switch {
	case len(found) == 0:
		return nil, nil
	case len(found) > 1:
		return nil, fmt.Errorf("%s: %d %s sections (concatenated modules); expected one", origin, len(found), name)
	}
	s := found[0]
	if s.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("%s: section %s has no contents", origin, name)
	}
	data, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: truncated or corrupt section %s: %v", origin, name, err)
	}
	if uint64(len(data)) != s.Size {
		return nil, fmt.Errorf("%s: truncated section %s: %d of %d bytes", origin, name, len(data), s.Size)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// splitCmd splits .llvmcmd contents at NULs; a trailing NUL ends the last arg.
func splitCmd(b []byte) []string {
	if b == nil {
		return nil
	}
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return []string{}
	}
	return strings.Split(string(b), "\x00")
}

// OptLevelFromCC1 returns the optimization level of a compile given its cc1
// arguments: "0".."3", "s" or "z" from the last -O flag; "0" when none.
func OptLevelFromCC1(args []string) string {
	level := "0"
	for _, a := range args {
		if l, ok := optLevel(a); ok {
			level = l
		}
	}
	return level
}

// hasOptNone reports whether a compile's bitcode marks its functions
// optnone: clang does at -O0 unless told -disable-O0-optnone.
func hasOptNone(cc1 []string) bool {
	if cc1 == nil || OptLevelFromCC1(cc1) != "0" {
		return false
	}
	for _, a := range cc1 {
		if a == "-disable-O0-optnone" {
			return false
		}
	}
	return true
}

// optLevel maps one -O flag as clang spells it to a level.
func optLevel(a string) (string, bool) {
	if !strings.HasPrefix(a, "-O") {
		return "", false
	}
	switch v := a[2:]; v {
	case "", "1", "g":
		return "1", true
	case "0", "2", "3", "s", "z":
		return v, true
	case "fast":
		return "3", true
	default:
		if len(v) > 0 && strings.Trim(v, "0123456789") == "" {
			return "3", true // clang treats -O4 and above as -O3
		}
		return "", false
	}
}
