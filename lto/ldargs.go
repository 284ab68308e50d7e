package lto

import (
	"fmt"
	"strings"
)

// ArgKind classifies one element of a linker command line.
type ArgKind uint8

const (
	KindOption  ArgKind = iota // an option, with its value if it takes one
	KindInput                  // a positional input file
	KindLibrary                // -l NAME, -lNAME, -l:FILE, --library=NAME
)

// LinkArg is one option or input of a linker command line.
type LinkArg struct {
	Index int     // index of its first word in LinkLine.Args
	Words int     // words it spans: 2 for "-o x" and "-l m", else 1
	Kind  ArgKind // option, input or library
	Name  string  // option name without dashes ("o", "whole-archive"); "" for inputs
	Value string  // the option's value, the input's path or the library's name
}

// LinkLine is a parsed ld.bfd / ld.lld command line.
type LinkLine struct {
	Args    []string  // the words, response files expanded
	Items   []LinkArg // every option and input, in order
	Output  string    // -o; "a.out" when absent
	Sysroot string    // --sysroot
	LibDirs []string  // -L directories in order, sysroot prefixes applied
	NoStd   bool      // -nostdlib: no default search directories
}

// argArity says how an option takes its value.
type argArity uint8

const (
	flagArg     argArity = iota // no value
	requiredArg                 // "--opt=v", "--opt v", "-opt v"
	equalsArg                   // only "--opt=v" (optional value)
)

// longOpts are ld.bfd and ld.lld options spelled with one or two dashes
// that take a value; any other long option is a flag.
var longOpts = map[string]argArity{}

func init() {
	for _, n := range strings.Fields(`audit depaudit architecture format mri-script entry auxiliary
		filter gpsize soname library library-path output just-symbols script default-script dT
		undefined require-defined trace-symbol dynamic-linker plugin plugin-opt rpath rpath-link
		hash-style version-script dynamic-list defsym wrap Map oformat retain-symbols-file
		section-start Tbss Tdata Ttext Ttext-segment Trodata-segment Tldata-segment image-base
		exclude-libs dependency-file package-metadata thread-count error-limit sort-section
		section-ordering-file exclude-symbols fini init hash-size error-handling-script assert
		mllvm symbol-ordering-file call-graph-ordering-file keep-unique orphan-handling
		unresolved-symbols export-dynamic-symbol undefined-glob remap-inputs remap-inputs-file
		sysroot emulation version-exports-section spare-dynamic-tags heap stack subsystem
		task-link out-implib dll-search-prefix target1-abs target2 just-symbols print-archive-stats
		lto-cs-profile-file lto-sample-profile opt-remarks-filename opt-remarks-passes
		opt-remarks-format thinlto-cache-dir thinlto-cache-policy thinlto-jobs plugin-opt
		reproduce `) {
		longOpts[n] = requiredArg
	}
	for _, n := range strings.Fields(`build-id compress-debug-sections sort-common unique icf
		pack-dyn-relocs threads why-extract lto-partitions lto-O color-diagnostics
		apply-dynamic-relocs undefined-version`) {
		longOpts[n] = equalsArg
	}
}

// shortWithArg are the single-letter options that take a value, joined
// ("-Lx") or as the next word ("-L x").
const shortWithArg = "AbcefFGhIlLmoOPRTuyYz"

// ParseLinkArgs parses linker arguments (response files already expanded).
func ParseLinkArgs(args []string) (*LinkLine, error) {
	l := &LinkLine{Args: args, Output: "a.out"}
	for i := 0; i < len(args); {
		it, err := parseOne(args, i)
		if err != nil {
			return nil, err
		}
		l.Items = append(l.Items, it)
		i += it.Words
	}
	for _, it := range l.Items {
		switch it.Name {
		case "o", "output":
			l.Output = it.Value
		case "sysroot":
			l.Sysroot = it.Value
		case "nostdlib":
			l.NoStd = true
		}
	}
	for _, it := range l.Items {
		if it.Name == "L" || it.Name == "library-path" {
			l.LibDirs = append(l.LibDirs, l.sysrootPath(it.Value))
		}
	}
	return l, nil
}

// sysrootPath expands a leading "=" or "$SYSROOT" to the sysroot.
func (l *LinkLine) sysrootPath(p string) string {
	switch {
	case strings.HasPrefix(p, "="):
		return l.Sysroot + p[1:]
	case strings.HasPrefix(p, "$SYSROOT"):
		return l.Sysroot + p[len("$SYSROOT"):]
	}
	return p
}

// parseOne parses the option or input starting at args[i].
func parseOne(args []string, i int) (LinkArg, error) {
	a := args[i]
	it := LinkArg{Index: i, Words: 1}
	if len(a) < 2 || a[0] != '-' {
		it.Kind, it.Value = KindInput, a
		return it, nil
	}
	body := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	name, value, hasEq := strings.Cut(body, "=")
	switch name {
	case "(":
		name = "start-group"
	case ")":
		name = "end-group"
	}
	if arity, ok := longOpts[name]; ok && (strings.HasPrefix(a, "--") || len(name) > 1) {
		it.Name = name
		switch {
		case hasEq:
			it.Value = value
		case arity == requiredArg:
			if i+1 >= len(args) {
				return it, fmt.Errorf("option %s needs a value", a)
			}
			it.Value, it.Words = args[i+1], 2
		}
		if name == "library" {
			it.Kind, it.Name = KindLibrary, "l"
		}
		return it, nil
	}
	if strings.HasPrefix(a, "--") || !strings.ContainsRune(shortWithArg, rune(a[1])) || isLongFlag(body) {
		// A flag; its value, if any, stays joined ("--hash-style=gnu" is handled above).
		it.Name, it.Value = name, value
		return it, nil
	}
	it.Name = a[1:2]
	if len(a) > 2 {
		it.Value = a[2:]
	} else {
		if i+1 >= len(args) {
			return it, fmt.Errorf("option %s needs a value", a)
		}
		it.Value, it.Words = args[i+1], 2
	}
	if it.Name == "l" {
		it.Kind = KindLibrary
	}
	return it, nil
}

// longFlags are single-dash flags that would otherwise read as a short
// option with a joined value ("-export-dynamic" is not "-e xport-dynamic").
var longFlags = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`export-dynamic no-export-dynamic Bstatic Bdynamic Bsymbolic
		Bsymbolic-functions Bshareable Bgroup Bno-symbolic static shared pie no-pie nostdlib
		call_shared non_shared dy dn dc dp fatal-warnings no-fatal-warnings eh-frame-hdr
		no-undefined allow-shlib-undefined no-allow-shlib-undefined omagic nmagic no-omagic
		relocatable r s S g i E M N n q t v V x X Qy qmagic gc-sections no-gc-sections
		as-needed no-as-needed whole-archive no-whole-archive start-group end-group
		enable-new-dtags disable-new-dtags error-unresolved-symbols warn-common
		fno-lto emit-relocs export-dynamic-symbol-list fix-cortex-a53-843419 Ur`) {
		longFlags[n] = true
	}
}

// isLongFlag reports whether a single-dash word is a known flag.
func isLongFlag(body string) bool { return longFlags[body] }

// Relocatable reports whether the line asks for ld -r (an object, not a
// program or shared library).
func (l *LinkLine) Relocatable() bool {
	for _, it := range l.Items {
		if it.Kind == KindOption && (it.Name == "r" || it.Name == "relocatable" || it.Name == "Ur") {
			return true
		}
	}
	return false
}
