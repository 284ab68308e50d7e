package adfuzz

import (
	"regexp"
	"strconv"
	"strings"
)

// llvmVersion is the LLVM major version RUN lines' conditions are checked
// against (`if [ %llvmver -ge 12 ]`): gozyme's.
const llvmVersion = 14

var llvmVerRE = regexp.MustCompile(`\[ *%llvmver +-(eq|ne|ge|gt|le|lt) +(\d+) *\]`)

// forThisLLVM reports whether every %llvmver condition of a RUN line holds
// for llvmVersion (Enzyme leaves some programs out on some versions).
func forThisLLVM(line string) bool {
	for _, m := range llvmVerRE.FindAllStringSubmatch(line, -1) {
		n, _ := strconv.Atoi(m[2])
		v := llvmVersion
		ok := map[string]bool{"eq": v == n, "ne": v != n, "ge": v >= n, "gt": v > n, "le": v <= n, "lt": v < n}[m[1]]
		if !ok {
			return false
		}
	}
	return true
}

// RunLineFlags returns the compile flags of the first of a suite program's
// lit RUN lines that compiles it with clang at -O<level> (Enzyme's own way
// to build it), keeping what says how the program is compiled: the
// language standard, -f options, -g, -D, -I, -l, -march, LLVM's own -mllvm
// options and -Xclang -new-struct-path-tbaa. Enzyme's plugin and its
// options, output options and lit substitutions (%s, %loadClangEnzyme) are
// left out, and so is the level (the runner adds its own). ok is false
// where no RUN line compiles at that level for LLVM 14 (lines whose
// %llvmver condition leaves 14 out do not count), or one needs what the
// runner cannot give (-include of Enzyme's headers, -x).
func RunLineFlags(text, level string) (flags []string, ok bool) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "// RUN:") || !forThisLLVM(line) {
			continue
		}
		for _, cmd := range strings.Split(strings.TrimPrefix(line, "// RUN:"), "|") {
			f := strings.Fields(strings.ReplaceAll(cmd, ";", " ; "))
			at := -1
			for i, t := range f {
				if t == "%clang" || t == "%clang++" {
					at = i
					break
				}
			}
			if at < 0 {
				continue
			}
			if flags, atLevel, usable := clangFlags(f[at+1:], level); atLevel {
				return flags, usable
			}
		}
	}
	return nil, false
}

// clangFlags keeps the flags of one clang command line (see RunLineFlags);
// atLevel reports whether it compiles at -O<level>.
func clangFlags(args []string, level string) (flags []string, atLevel, usable bool) {
	usable = true
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "-O"+level, level == "0" && a == "%O0TBAA":
			atLevel = true
		case a == ";" || a == "&&" || a == "fi":
			// The shell goes on with another command.
			return flags, atLevel, usable
		case a == "-o":
			next()
		case a == "-Xclang":
			if x := next(); x == "-new-struct-path-tbaa" {
				flags = append(flags, a, x)
			}
		case a == "-mllvm":
			if x := next(); !strings.HasPrefix(x, "-enzyme") {
				flags = append(flags, a, x)
			}
		case a == "-include", a == "-x":
			next()
			usable = false
		case strings.HasPrefix(a, "-fplugin"), strings.HasPrefix(a, "-fpass-plugin"):
		case strings.HasPrefix(a, "-std="), strings.HasPrefix(a, "-f"), a == "-g", a == "-g0",
			strings.HasPrefix(a, "-D"), strings.HasPrefix(a, "-I"), strings.HasPrefix(a, "-l"),
			strings.HasPrefix(a, "-march="):
			flags = append(flags, a)
		}
	}
	return flags, atLevel, usable
}
