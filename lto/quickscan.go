package lto

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// enzymeMark is in every object (symbol names) and every bitcode module
// that calls an Enzyme entry point.
var enzymeMark = []byte("__enzyme_")

// quickScan reports whether any input of the link may hold an AD root: the
// bytes of an object, archive or input script it names mention
// "__enzyme_". It reads files but parses no ELF, so a link without Enzyme
// calls costs little more than the plain link. Shared libraries cannot hold
// roots and are skipped.
func quickScan(line *LinkLine, realLD, cacheDir string, log *fileLog) bool {
	s := &scanner{line: line, realLD: realLD, cacheDir: cacheDir, seen: map[string]bool{}, log: log}
	s.inputs()
	return s.roots
}

// ScanInputs is quickScan for an ld command line that gozyme-cc assembled
// from a compiler driver's linker inputs and library directories (see
// wrapper). mayHaveRoots counts anything it cannot settle (a library it
// does not find, a line it cannot parse) as a possible root. In the same
// read of the inputs it reports whether an object or archive contains one
// of the byte strings also (none given: nothing is looked for).
func ScanInputs(args []string, also [][]byte) (mayHaveRoots, alsoFound bool) {
	expanded, err := ExpandResponseFiles(args)
	if err != nil {
		return true, false
	}
	line, err := ParseLinkArgs(expanded)
	if err != nil {
		return true, false
	}
	// Sysroot paths are not followed here: that is gozyme-ld's to do.
	s := &scanner{line: line, strict: true, also: also, roots: line.Sysroot != "", seen: map[string]bool{}}
	if !s.done() {
		s.inputs()
	}
	return s.roots, s.alsoFound
}

type scanner struct {
	line     *LinkLine
	realLD   string
	cacheDir string   // the link cache, for the linker's default directories
	strict   bool     // no default directories; a library not found may hold roots
	dirs     []string // -L directories, then ld's defaults once needed
	withStd  bool
	seen     map[string]bool
	log      *fileLog // records the files consulted (relink.go); nil: none

	also      [][]byte // further byte strings to look for (ScanInputs)
	roots     bool     // an input may hold an AD root
	alsoFound bool     // an object or archive contains one of also
}

// done reports that reading more inputs can change nothing.
func (s *scanner) done() bool { return s.roots && (s.alsoFound || len(s.also) == 0) }

// inputs reads the inputs and -l libraries of the line until done.
func (s *scanner) inputs() {
	for _, it := range s.line.Items {
		switch it.Kind {
		case KindInput:
			if s.file(it.Value) {
				return
			}
		case KindLibrary:
			if s.lib(it.Value) {
				return
			}
		}
	}
}

// lib is file for the library -l name loads; one not found counts as a
// possible root in strict mode.
func (s *scanner) lib(name string) bool {
	if p := s.findLib(name); p != "" {
		return s.file(p)
	}
	s.roots = s.roots || s.strict
	return s.done()
}

// match records what the bytes of an object or archive contain.
func (s *scanner) match(data []byte) {
	if !s.roots {
		s.roots = bytes.Contains(data, enzymeMark)
	}
	for _, m := range s.also {
		if s.alsoFound {
			break
		}
		s.alsoFound = bytes.Contains(data, m)
	}
}

// file reads path (an object, archive or input script, whose files it
// follows) and reports whether the scan is done.
func (s *scanner) file(path string) bool {
	if s.seen[path] {
		return false
	}
	s.seen[path] = true
	s.log.note(path)
	f, err := os.Open(path)
	if err != nil {
		return false // the real linker reports it
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	isELF := bytes.HasPrefix(head, []byte(elf.ELFMAG))
	if isELF && n > 17 && elf.Type(head[16]) == elf.ET_DYN {
		return false
	}
	data, release, err := mapFile(f)
	if err != nil {
		return false
	}
	defer release()
	if isELF || IsArchive(head) || IsBitcode(head) {
		s.match(data)
		return s.done()
	}
	inputs, dirs, ok := parseInputScript(string(data))
	if !ok {
		return false
	}
	for _, d := range dirs {
		s.dirs = append(s.dirs, s.line.sysrootPath(d))
	}
	for _, in := range inputs {
		p := in.Name
		if name, isLib := strings.CutPrefix(p, "-l"); isLib {
			if s.lib(name) {
				return true
			}
			continue
		}
		if !filepath.IsAbs(p) {
			if _, err := s.log.stat(p); err != nil {
				p = s.findLib(":" + p)
			}
		} else {
			p = s.line.sysrootPath(p)
		}
		if p != "" && s.file(p) {
			return true
		}
	}
	return false
}

// findLib finds the file -l NAME loads: in the first directory holding
// libNAME.so or libNAME.a, the .so in dynamic links (a shared library, which
// file skips, or an input script, which it follows), else the archive.
func (s *scanner) findLib(name string) string {
	want, shared := "lib"+name+".a", "lib"+name+".so"
	if rest, exact := strings.CutPrefix(name, ":"); exact {
		want, shared = rest, ""
	}
	if s.static() {
		shared = ""
	}
	look := func(dirs []string) (string, bool) {
		for _, d := range dirs {
			if shared != "" {
				if p := filepath.Join(d, shared); s.isFile(p) {
					return p, true
				}
			}
			if p := filepath.Join(d, want); s.isFile(p) {
				return p, true
			}
		}
		return "", false
	}
	if s.dirs == nil {
		s.dirs = append([]string{}, s.line.LibDirs...)
	}
	if p, found := look(s.dirs); found {
		return p
	}
	if !s.withStd && !s.line.NoStd && !s.strict {
		s.withStd = true
		std := cachedSearchDirs(s.cacheDir, s.realLD)
		s.dirs = append(s.dirs, std...)
		p, _ := look(std)
		return p
	}
	return ""
}

// static reports a link that may prefer archives over shared libraries.
func (s *scanner) static() bool {
	for _, it := range s.line.Items {
		switch it.Name {
		case "static", "Bstatic", "dn", "non_shared":
			return true
		}
	}
	return false
}

// mapFile maps a file read-only (falling back to reading it), so scanning
// large archives copies nothing.
func mapFile(f *os.File) ([]byte, func(), error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() == 0 {
		return nil, func() {}, nil
	}
	if data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
		return data, func() { syscall.Munmap(data) }, nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, st.Size()))
	return data, func() {}, err
}

func (s *scanner) isFile(p string) bool {
	st, err := s.log.stat(p)
	return err == nil && !st.IsDir()
}
