package flang

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// flang-16 ignores -g, so its LLVM IR names no source location, and an AD
// error in Fortran code could name only the function. The FIR it prints
// with --mlir-print-debuginfo has each function's location; FuncLines
// reads them and AddFuncLocations gives the LLVM functions line-table
// debug info (a DISubprogram per function, its line on every call), which
// is what gozyme's diagnostics read.

// FuncLoc is where a function is defined in its source.
type FuncLoc struct {
	File string
	Line int
}

var (
	firFuncHeader = regexp.MustCompile(`^  func\.func (?:private |public )?@([A-Za-z0-9_.$]+)\(.*\{$`)
	firFuncEnd    = regexp.MustCompile(`^  \} loc\((#loc[0-9]*)\)$`)
	firLocAlias   = regexp.MustCompile(`^(#loc[0-9]*) = loc\("((?:[^"\\]|\\.)*)":([0-9]+):[0-9]+\)$`)
	firInlineLoc  = regexp.MustCompile(`loc\("((?:[^"\\]|\\.)*)":([0-9]+):[0-9]+\)`)
	externalProc  = regexp.MustCompile(`^_QP([a-z0-9_]+)$`)
)

// FuncLines maps the LLVM names of the functions FIR text defines to their
// source locations. FIR names external procedures _QPname; flang's LLVM
// names them name_ (other names are kept).
func FuncLines(fir string) map[string]FuncLoc {
	aliases := map[string]FuncLoc{}
	pending := map[string]string{} // function -> location alias
	out := map[string]FuncLoc{}
	current := ""
	for _, line := range strings.Split(fir, "\n") {
		if m := firLocAlias.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[3])
			aliases[m[1]] = FuncLoc{File: m[2], Line: n}
			continue
		}
		if m := firFuncHeader.FindStringSubmatch(line); m != nil {
			current = m[1]
			// The arguments' locations are the function's own.
			if l := firInlineLoc.FindStringSubmatch(line); l != nil {
				n, _ := strconv.Atoi(l[2])
				out[llvmName(current)] = FuncLoc{File: l[1], Line: n}
			}
			continue
		}
		if m := firFuncEnd.FindStringSubmatch(line); m != nil && current != "" {
			pending[llvmName(current)] = m[1]
			current = ""
		}
	}
	for f, alias := range pending {
		if l, ok := aliases[alias]; ok && l.Line > 0 {
			out[f] = l
		}
	}
	return out
}

func llvmName(fir string) string {
	if m := externalProc.FindStringSubmatch(fir); m != nil {
		return m[1] + "_"
	}
	return fir
}

var (
	llDefine   = regexp.MustCompile(`^define .*@("?)([A-Za-z0-9_.$]+)"?\(.*\{$`)
	llMetadata = regexp.MustCompile(`!([0-9]+)`)
)

// AddFuncLocations adds line-table debug info to LLVM IR text for the
// functions locs names: a compile unit for file dir/... , a DISubprogram
// on each such definition, and that line as the location of every call in
// it (the verifier wants calls located inside located functions). Text
// that already has debug info, or no "Debug Info Version" flag, is
// returned unchanged.
func AddFuncLocations(ll string, locs map[string]FuncLoc, dir string) string {
	if len(locs) == 0 || strings.Contains(ll, "!llvm.dbg.cu") || !strings.Contains(ll, `!"Debug Info Version"`) {
		return ll
	}
	next := 0
	for _, m := range llMetadata.FindAllStringSubmatch(ll, -1) {
		if n, _ := strconv.Atoi(m[1]); n >= next {
			next = n + 1
		}
	}
	id := func() int { next++; return next - 1 }
	cu, typ := id(), id()
	files := map[string]int{}
	var meta []string
	fileID := func(name string) int {
		if n, ok := files[name]; ok {
			return n
		}
		n := id()
		files[name] = n
		d := dir
		if filepath.IsAbs(name) {
			d = filepath.Dir(name)
		}
		meta = append(meta, fmt.Sprintf("!%d = !DIFile(filename: %s, directory: %s)", n,
			quoteMeta(strings.TrimPrefix(name, "./")), quoteMeta(d)))
		return n
	}
	var out strings.Builder
	sp, loc := -1, -1
	lines := strings.Split(ll, "\n")
	for i, line := range lines {
		if m := llDefine.FindStringSubmatch(line); m != nil {
			sp = -1
			if l, ok := locs[m[2]]; ok {
				f := fileID(l.File)
				sp, loc = id(), id()
				meta = append(meta,
					fmt.Sprintf("!%d = distinct !DISubprogram(name: %s, scope: !%d, file: !%d, line: %d, type: !%d, scopeLine: %d, spFlags: DISPFlagDefinition, unit: !%d)",
						sp, quoteMeta(m[2]), f, f, l.Line, typ, l.Line, cu),
					fmt.Sprintf("!%d = !DILocation(line: %d, scope: !%d)", loc, l.Line, sp))
				line = strings.TrimSuffix(line, "{") + fmt.Sprintf("!dbg !%d {", sp)
			}
		} else if line == "}" {
			sp = -1
		} else if sp >= 0 && isCall(line) && !strings.Contains(line, "!dbg") {
			line += fmt.Sprintf(", !dbg !%d", loc)
		}
		out.WriteString(line)
		if i < len(lines)-1 {
			out.WriteByte('\n')
		}
	}
	if len(meta) == 0 {
		return ll
	}
	// The compile unit names the first file; each subprogram has its own.
	var first string
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	first = names[0]
	text := strings.TrimRight(out.String(), "\n") + "\n\n"
	text += fmt.Sprintf("!llvm.dbg.cu = !{!%d}\n", cu)
	text += fmt.Sprintf("!%d = distinct !DICompileUnit(language: DW_LANG_Fortran95, file: !%d, producer: \"flang-16 (locations added by gozyme)\", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)\n", cu, files[first])
	text += fmt.Sprintf("!%d = !DISubroutineType(types: !{})\n", typ)
	return text + strings.Join(meta, "\n") + "\n"
}

// isCall reports an LLVM IR line holding a call instruction.
func isCall(line string) bool {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, " = "); i >= 0 && strings.HasPrefix(t, "%") {
		t = t[i+3:]
	}
	for _, p := range []string{"tail ", "musttail ", "notail "} {
		t = strings.TrimPrefix(t, p)
	}
	return strings.HasPrefix(t, "call ")
}

// quoteMeta quotes s as an LLVM metadata string.
func quoteMeta(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			fmt.Fprintf(&b, "\\%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}
