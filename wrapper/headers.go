package wrapper

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A computed #include (lua.h's #include LUA_USER_H) hides from the textual
// attribute scan which headers a TU reads. Rather than a second frontend
// pass (the preprocessor) after the compile, the compile itself lists the
// headers it enters: clang's driver passes -header-include-file when
// CC_PRINT_HEADERS is set, and the list names every file #include entered,
// system headers and computed includes alike, at no measurable cost.

// tuScan is what the attribute scan of a TU found before its compile: the
// textual scan's answer, and where a computed #include leaves it open, the
// file where the compile lists the headers it enters ("" without one).
type tuScan struct {
	mention attributeMention
	headers string
}

// prescan scans the one embedding source a clang call compiles before the
// call runs, and returns the environment for the call (nil: the compile
// runs as it would) and the scan (nil for a call of several sources or
// none, whose TUs are scanned after it). Where the textual scan cannot
// follow a computed include and the list can stand in for the
// preprocessor, the environment asks clang for the header list.
func (d *driver) prescan(cmd *Command, srcs []Input, tmp *tempDir) ([]string, *tuScan) {
	if len(srcs) != 1 || !embeds(srcs[0].Lang) || srcs[0].Path == "-" {
		return nil, nil
	}
	scan := &tuScan{mention: scanAttribute(srcs[0].Path, includeDirs(cmd), forcedIncludes(cmd))}
	if scan.mention != mayMention || !headerListUsable(cmd) {
		return nil, scan
	}
	dir, err := tmp.get()
	if err != nil {
		return nil, scan
	}
	scan.headers = filepath.Join(dir, fmt.Sprintf("headers-%d.txt", srcs[0].Item))
	return append(os.Environ(), "CC_PRINT_HEADERS=1", "CC_PRINT_HEADERS_FILE="+scan.headers), scan
}

// headerListUsable reports whether clang's header list of a compile names
// every header the TU's text comes from and goes nowhere else: not when the
// user asks for it (CC_PRINT_HEADERS, or -H, whose output it would take),
// nor when headers come precompiled (-include-pch, modules), nor with
// -save-temps (the preprocessing runs apart), nor with a dependency file
// of user headers only (-MMD): CC_PRINT_HEADERS makes clang's driver pass
// -sys-header-deps, which puts system headers in that file too.
func headerListUsable(cmd *Command) bool {
	if os.Getenv("CC_PRINT_HEADERS") != "" {
		return false
	}
	for _, it := range cmd.Items {
		if it.Kind != Flag {
			continue
		}
		for _, a := range it.Args {
			switch {
			case a == "-H", a == "--trace-includes", a == "-include-pch", a == "-fcxx-modules",
				strings.HasPrefix(a, "-fmodule"), strings.HasPrefix(a, "-save-temps"), strings.HasPrefix(a, "--save-temps"),
				userDependencies(a):
				return false
			}
		}
	}
	return true
}

// userDependencies reports an option asking for a dependency file that
// leaves system headers out: -MMD, -MM and their long names, also through
// -Wp, (which clang's driver turns into -MMD).
func userDependencies(a string) bool {
	switch a {
	case "-MMD", "-MM", "--write-user-dependencies", "--user-dependencies":
		return true
	}
	if rest, ok := strings.CutPrefix(a, "-Wp,"); ok {
		for _, w := range strings.Split(rest, ",") {
			if w == "-MMD" || w == "-MM" {
				return true
			}
		}
	}
	return false
}

// ownPassEnv is the environment of gozyme's own frontend passes over a
// source (the AST dump, the preprocessor, the bitcode beside
// -fembed-bitcode's): the process's, without the user's request for a
// header list, which those passes would add to (the user's compile
// writes it).
func ownPassEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "CC_PRINT_HEADERS=") && !strings.HasPrefix(e, "CC_PRINT_HEADERS_FILE=") {
			out = append(out, e)
		}
	}
	return out
}

// listedMention reports whether the TU of src, whose compile listed the
// headers it entered in the file list, may use an Enzyme attribute: the
// source, the files forced in, every listed header (system headers too)
// or a -D option of the command line mentions one (usesAttributeText).
// ok is false when the list is missing (clang wrote none).
func listedMention(list, src string, forced []string, cmd *Command) (mention, ok bool) {
	f, err := os.Open(list)
	if err != nil {
		return false, false
	}
	defer f.Close()
	for _, it := range cmd.Items {
		if it.Kind == Flag && usesAttributeText([]byte(strings.Join(it.Args, " "))) {
			return true, true
		}
	}
	files := append([]string{src}, forced...)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			files = append(files, l)
		}
	}
	if sc.Err() != nil {
		return false, false
	}
	seen := map[string]bool{}
	for _, p := range files {
		if seen[p] {
			continue
		}
		seen[p] = true
		data, err := os.ReadFile(p)
		if err != nil {
			// A file clang read and gozyme cannot: the AST decides.
			return true, true
		}
		if usesAttributeText(data) {
			return true, true
		}
	}
	return false, true
}

// usesAttributeText reports a use of an attribute macro or of the
// annotation they expand to (written out by hand) in text.
func usesAttributeText(data []byte) bool {
	return bytes.Contains(data, []byte("enzyme")) && (attrUse.Match(data) || bytes.Contains(data, []byte(annotationInText)))
}
