package lto

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Input is an object file or archive member that takes part in a link.
type Input struct {
	Item      int      // index in LinkLine.Items of the argument it came from
	Path      string   // the object, or the archive holding the member
	Archive   *Archive // the archive for a member; nil for an object
	Member    *Member  // the member; nil for an object
	Origin    string   // "dir/a.o" or "lib/libm.a(x.o)"
	ViaScript bool     // named by a linker script, not by the argument itself
	Data      []byte   // the object's bytes
	Embedded           // its .llvmbc / .llvmcmd (nil when absent)
	Err       error    // reading them failed
	Syms      []objSym // its global symbols (ELF symbol table)
	SymErr    error    // the symbol table could not be read
	LTO       bool     // a bitcode file (-flto), not an ELF object

	bitcodeSum []byte // sha256 of Bitcode, once asked (bitcodeDigest)
}

// bitcodeDigest is the sha256 of the input's bitcode, computed once: the
// link cache's keys of its symbol listing and of every job it is part of
// cover it.
func (in *Input) bitcodeDigest() []byte {
	if in.bitcodeSum == nil {
		sum := sha256.Sum256(in.Bitcode)
		in.bitcodeSum = sum[:]
	}
	return in.bitcodeSum
}

// ResolveOptions says which linker's behaviour to simulate.
type ResolveOptions struct {
	RealLD string // its default search directories are used (see DefaultSearchDirs)
	// CacheDir is the link cache, where the linker's default search
	// directories are kept between links ("": asked each time).
	CacheDir string
	LLD      bool              // lld's archive semantics: no groups needed, lazy symbols remembered
	Names    map[string]string // object path -> the name messages give it (a compile-and-link's source)
	log      *fileLog          // records the files consulted (relink.go); nil: none
}

// ObjectSourcesEnv is the environment variable through which gozyme-cc
// tells gozyme-ld, as a JSON object, the source each temporary object of
// a compile-and-link line comes from, so that messages name the source.
const ObjectSourcesEnv = "GOZYME_OBJECT_SOURCES"

// resolver simulates the linker's symbol resolution to learn which
// objects and archive members take part in a link.
type resolver struct {
	line    *LinkLine
	opt     ResolveOptions
	dirs    []string
	defined map[string]bool
	shared  []*dynTable                       // shared libraries read so far, asked by name (isDefined)
	undef   map[string]bool                   // strong references not yet defined
	lazy    map[string]lazyRef                // lld: archive members offering a symbol
	syms    map[*Member][]objSym              // member symbol tables, read once
	index   map[*Archive]map[*Member][]string // archive symbol indexes, read once (nil: none)
	loaded  map[*Member]bool
	origin  map[*Archive]argRef // the argument each archive came from
	static  bool
	whole   bool
	group   []*Archive // archives of the open --start-group, nil outside
	inGroup bool
	inputs  []*Input
	item    int
	script  bool
}

type lazyRef struct {
	a *Archive
	m *Member
}

// argRef is where an input sits on the command line.
type argRef struct {
	item   int
	script bool
}

type linkState struct{ static, whole bool }

// Resolve returns the objects and archive members the linker will load
// for line, in the order it loads them. Files it cannot find or read are
// skipped: the real linker reports them.
func Resolve(line *LinkLine, opt ResolveOptions) ([]*Input, error) {
	r := &resolver{
		line: line, opt: opt,
		defined: map[string]bool{}, undef: map[string]bool{}, lazy: map[string]lazyRef{},
		syms: map[*Member][]objSym{}, index: map[*Archive]map[*Member][]string{}, loaded: map[*Member]bool{}, origin: map[*Archive]argRef{},
	}
	r.dirs = append(r.dirs, line.LibDirs...)
	if !line.NoStd && opt.RealLD != "" {
		for _, d := range cachedSearchDirs(opt.CacheDir, opt.RealLD) {
			r.dirs = append(r.dirs, line.sysrootPath(d))
		}
	}
	for _, it := range line.Items {
		switch it.Name {
		case "u", "undefined", "require-defined", "e", "entry":
			r.undef[it.Value] = true
		}
	}
	var stack []linkState
	for i, it := range line.Items {
		r.item, r.script = i, false
		switch it.Kind {
		case KindInput:
			r.addFile(it.Value)
			continue
		case KindLibrary:
			if p := r.findLib(it.Value); p != "" {
				r.addFile(p)
			}
			continue
		}
		switch it.Name {
		case "whole-archive":
			r.whole = true
		case "no-whole-archive":
			r.whole = false
		case "Bstatic", "static", "dn", "non_shared":
			r.static = true
		case "Bdynamic", "dy", "call_shared":
			r.static = false
		case "push-state":
			stack = append(stack, linkState{r.static, r.whole})
		case "pop-state":
			if n := len(stack); n > 0 {
				r.static, r.whole = stack[n-1].static, stack[n-1].whole
				stack = stack[:n-1]
			}
		case "start-group":
			r.inGroup, r.group = true, nil
		case "end-group":
			r.endGroup()
		}
	}
	return r.inputs, nil
}

// findLib searches for -l NAME (or -l :FILE) as ld does: each directory in
// turn, the shared library before the archive unless linking statically.
func (r *resolver) findLib(name string) string {
	var cands []string
	if strings.HasPrefix(name, ":") {
		cands = []string{name[1:]}
	} else {
		if !r.static {
			cands = append(cands, "lib"+name+".so")
		}
		cands = append(cands, "lib"+name+".a")
	}
	for _, d := range r.dirs {
		for _, c := range cands {
			p := filepath.Join(d, c)
			if st, err := r.opt.log.stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
	}
	return ""
}

// addFile loads an input file by its kind: object, shared library, archive
// or input script.
func (r *resolver) addFile(path string) {
	r.opt.log.note(path)
	if r.addSharedLibrary(path) {
		return
	}
	data, err := readInput(path)
	if err != nil {
		return
	}
	switch {
	case bytes.HasPrefix(data, []byte(elf.ELFMAG)):
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			r.addObject(path, data, nil, nil) // corrupt: record it, ld reports it
			return
		}
		switch f.Type {
		case elf.ET_REL:
			r.addObject(path, data, nil, nil)
		case elf.ET_DYN:
			if syms, err := f.DynamicSymbols(); err == nil {
				for _, s := range syms {
					if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL {
						r.define(s.Name)
					}
				}
			}
		}
	case IsBitcode(data):
		r.addObject(path, data, nil, nil) // a -flto object
	case IsArchive(data):
		a, err := ParseArchive(data, path)
		if err != nil {
			// Recorded, so that a link needing it names it; ld rejects it too.
			r.inputs = append(r.inputs, &Input{Item: r.item, Path: path, Origin: path, ViaScript: r.script, Data: data, Err: err, SymErr: err})
			return
		}
		if a.Thin {
			r.opt.log.cannotFollow() // its members are files of their own
			if a, err = ReadArchive(path); err != nil {
				return
			}
		}
		r.addArchive(a)
	default:
		r.addScript(path, string(data))
	}
}

// addSharedLibrary reads the definitions of a shared library from its
// dynamic symbol table alone, without reading the whole file (libc and
// libstdc++ are megabytes, on every link), and reports whether path was
// one.
func (r *resolver) addSharedLibrary(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil || string(magic[:]) != elf.ELFMAG {
		return false
	}
	ef, err := elf.NewFile(f)
	if err != nil || ef.Type != elf.ET_DYN {
		return false
	}
	if t := newDynTable(ef); t != nil {
		// What the link already needs, the library now defines; later
		// references ask it by name.
		r.shared = append(r.shared, t)
		for name := range r.undef {
			if t.defines(name) {
				r.define(name)
			}
		}
		for name := range r.lazy {
			if t.defines(name) {
				r.define(name)
			}
		}
		return true
	}
	if syms, err := ef.DynamicSymbols(); err == nil {
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL {
				r.define(s.Name)
			}
		}
	}
	return true
}

// addScript follows the files a GNU ld input script names.
func (r *resolver) addScript(path, text string) {
	inputs, dirs, ok := parseInputScript(text)
	if !ok {
		return
	}
	for _, d := range dirs {
		r.dirs = append(r.dirs, r.line.sysrootPath(d))
	}
	wasScript, wasGroup := r.script, r.inGroup
	r.script = true
	grouped := false
	for _, in := range inputs {
		if in.Group && !r.inGroup {
			r.inGroup, r.group, grouped = true, nil, true
		}
		var p string
		switch {
		case strings.HasPrefix(in.Name, "-l"):
			p = r.findLib(in.Name[2:])
		case filepath.IsAbs(in.Name):
			p = in.Name
			if r.line.Sysroot != "" && strings.HasPrefix(path, r.line.Sysroot+"/") {
				p = r.line.Sysroot + in.Name
			}
		default:
			p = in.Name
			if _, err := r.opt.log.stat(p); err != nil {
				p = r.findLib(":" + in.Name)
			}
		}
		if p != "" {
			r.addFile(p)
		}
	}
	if grouped && !wasGroup {
		r.endGroup()
	}
	r.script = wasScript
}

// endGroup rescans the group's archives until none pulls another member.
func (r *resolver) endGroup() {
	if !r.opt.LLD {
		for pulled := true; pulled; {
			pulled = false
			for _, a := range r.group {
				if r.scanArchive(a) {
					pulled = true
				}
			}
		}
	}
	r.inGroup, r.group = false, nil
}

// addArchive loads the members the link needs (all with --whole-archive).
func (r *resolver) addArchive(a *Archive) {
	r.origin[a] = argRef{r.item, r.script}
	if r.whole {
		for _, m := range a.Members {
			r.loadMember(a, m)
		}
		return
	}
	if r.opt.LLD {
		for _, m := range a.Members {
			for _, s := range r.memberSyms(m) {
				if !s.defined || r.loaded[m] {
					continue
				}
				switch {
				case r.undef[s.name]:
					r.loadMember(a, m)
				case !r.isDefined(s.name):
					if _, ok := r.lazy[s.name]; !ok {
						r.lazy[s.name] = lazyRef{a, m}
					}
				}
			}
		}
		return
	}
	if r.inGroup {
		r.group = append(r.group, a)
	}
	r.scanArchive(a)
}

// scanArchive loads, pass after pass, every member defining a symbol that
// is still undefined, as ld.bfd does; it reports whether any was loaded.
// What a member defines is read from the archive's symbol index, as ld
// reads it, without parsing the members (libgcc.a has hundreds, on every
// link); an archive without one has its members' symbol tables read.
func (r *resolver) scanArchive(a *Archive) bool {
	index, ok := r.index[a]
	if !ok {
		index = a.indexedSymbols()
		r.index[a] = index
	}
	defines := func(m *Member) bool {
		if index != nil {
			for _, name := range index[m] {
				if r.undef[name] {
					return true
				}
			}
			return false
		}
		for _, s := range r.memberSyms(m) {
			if s.defined && r.undef[s.name] {
				return true
			}
		}
		return false
	}
	any := false
	for pulled := true; pulled; {
		pulled = false
		for _, m := range a.Members {
			if !r.loaded[m] && defines(m) {
				r.loadMember(a, m)
				pulled, any = true, true
			}
		}
	}
	return any
}

func (r *resolver) memberSyms(m *Member) []objSym {
	s, ok := r.syms[m]
	if !ok {
		s, _ = elfSymbols(m.Data)
		r.syms[m] = s
	}
	return s
}

func (r *resolver) loadMember(a *Archive, m *Member) {
	if r.loaded[m] {
		return
	}
	r.loaded[m] = true
	if !bytes.HasPrefix(m.Data, []byte(elf.ELFMAG)) && !IsBitcode(m.Data) {
		return // not an object (a text member): ld ignores or reports it
	}
	cur := argRef{r.item, r.script}
	ref := r.origin[a]
	r.item, r.script = ref.item, ref.script
	r.addObject(a.Path, m.Data, a, m)
	r.item, r.script = cur.item, cur.script
}

// addObject records an object's definitions and references and reads its
// embedded bitcode.
func (r *resolver) addObject(path string, data []byte, a *Archive, m *Member) {
	in := &Input{Item: r.item, Path: path, Archive: a, Member: m, Origin: path, ViaScript: r.script, Data: data}
	if a != nil {
		in.Origin = a.Origin(m)
	} else if name, ok := r.opt.Names[path]; ok {
		in.Origin = name
	}
	if IsBitcode(data) {
		in.Embedded, in.LTO = Embedded{Bitcode: data}, true
	} else {
		in.Embedded, in.Err = ReadEmbedded(bytes.NewReader(data), in.Origin)
	}
	r.inputs = append(r.inputs, in)

	var syms []objSym
	if m != nil {
		syms = r.memberSyms(m)
		if syms == nil {
			_, in.SymErr = elfSymbols(data)
		}
	} else {
		syms, in.SymErr = elfSymbols(data)
	}
	in.Syms = syms
	for _, s := range syms {
		if s.defined {
			r.define(s.name)
		}
	}
	for _, s := range syms {
		if s.defined || s.weak || r.isDefined(s.name) {
			continue
		}
		r.undef[s.name] = true
		if l, ok := r.lazy[s.name]; ok && r.opt.LLD {
			r.loadMember(l.a, l.m)
		}
	}
}

// isDefined reports whether an input loaded so far defines name: an
// object or member, or a shared library.
func (r *resolver) isDefined(name string) bool {
	if r.defined[name] {
		return true
	}
	for _, t := range r.shared {
		if t.defines(name) {
			return true
		}
	}
	return false
}

func (r *resolver) define(name string) {
	r.defined[name] = true
	delete(r.undef, name)
	delete(r.lazy, name)
}

// String describes an input for messages and tests.
func (in *Input) String() string {
	return fmt.Sprintf("%s [arg %d]", in.Origin, in.Item)
}
