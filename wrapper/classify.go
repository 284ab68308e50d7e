package wrapper

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Mode is what a clang driver command line does, as far as the wrapper is
// concerned.
type Mode int

const (
	// PassThrough command lines make no object file (-E, -S, -M,
	// --version, no inputs, ...): clang runs unchanged.
	PassThrough Mode = iota
	// Compile command lines (-c) turn sources into objects.
	Compile
	// CompileAndLink command lines compile sources and link them.
	CompileAndLink
	// Link command lines link objects, archives and libraries only.
	Link
)

func (m Mode) String() string {
	switch m {
	case Compile:
		return "compile"
	case CompileAndLink:
		return "compile-and-link"
	case Link:
		return "link"
	}
	return "pass-through"
}

// Kind says what role an Item plays on the command line.
type Kind int

const (
	// Flag is any option with its values that the wrapper keeps as is.
	Flag Kind = iota
	// Source is an input file clang compiles (or assembles).
	Source
	// LinkerInput is an object, archive or library file, -l, -Wl, or
	// -Xlinker: something only the link step uses.
	LinkerInput
	// Language is -x (or --language).
	Language
	// Output is -o (or --output).
	Output
)

// Item is one option with its values, or one input, in command-line order.
type Item struct {
	Kind Kind
	Args []string // the arguments exactly as given
	// Path is the file of a Source or file LinkerInput, or the output file.
	Path string
	// Lang is the clang -x language of a file input ("object" for files
	// clang hands to the linker).
	Lang string
	// FromX reports that Lang was set by -x, not by the file's extension.
	FromX bool
}

// Input is a file input: a source or a linker input file.
type Input struct {
	Path  string
	Lang  string
	FromX bool
	Item  int // index into Command.Items
}

// Command is a classified clang driver command line.
type Command struct {
	Mode   Mode
	Reason string // why a command line passes through (for diagnostics)
	Items  []Item
	// Inputs are the file inputs in order; "-" is standard input.
	Inputs []Input
	// Output is the -o value; HasOutput says whether one was given.
	Output    string
	HasOutput bool
	// OptLevel is the effective -O level: the last -O value ("0" when
	// none is given, "1" for a bare -O); OptGiven says whether one was.
	OptLevel string
	OptGiven bool
	// DevNull reports -o /dev/null, as configure probes use.
	DevNull bool
	// LTO reports that the last of -flto*/-fno-lto enables LTO.
	LTO bool
}

// Sources returns the inputs clang compiles.
func (c *Command) Sources() []Input {
	var out []Input
	for _, in := range c.Inputs {
		if isSource(in.Lang) {
			out = append(out, in)
		}
	}
	return out
}

// Classify parses a clang driver command line (response files already
// expanded, program name excluded). Options are parsed with their arity;
// unknown options are single-argument flags.
func Classify(args []string) *Command {
	c := &Command{OptLevel: "0"}
	if len(args) > 0 && (args[0] == "-cc1" || args[0] == "-cc1as" || args[0] == "-fc1") {
		// The frontend's own command line: other options, other arities.
		for _, a := range args {
			c.Items = append(c.Items, Item{Kind: Flag, Args: []string{a}})
		}
		c.Mode, c.Reason = PassThrough, "clang "+args[0]
		return c
	}
	var (
		xLang       string // current -x language, "" for none
		stop        bool   // after "--" every argument is an input
		compileOnly bool
		passReason  string
		linkerArgs  bool
		badLang     *string // the first -x value clang does not know
		stdinNoLang bool
		header      string
	)
	pass := func(reason string) {
		if passReason == "" {
			passReason = reason
		}
	}
	addInput := func(a string) {
		it := Item{Kind: LinkerInput, Args: []string{a}, Path: a, Lang: "object"}
		switch {
		case xLang != "":
			it.Lang, it.FromX = xLang, true
		case a == "-":
			it.Lang = ""
			stdinNoLang = true
		default:
			it.Lang = langOfPath(a)
		}
		if isSource(it.Lang) {
			it.Kind = Source
		}
		if isHeader(it.Lang) && header == "" {
			header = a
		}
		c.Inputs = append(c.Inputs, Input{Path: a, Lang: it.Lang, FromX: it.FromX, Item: len(c.Items)})
		c.Items = append(c.Items, it)
	}
	setLang := func(v string) {
		if v == "none" {
			xLang = ""
			return
		}
		if !knownLangs[v] && badLang == nil {
			badLang = &v
		}
		xLang = v
	}
	setOutput := func(v string) {
		c.Output, c.HasOutput = v, true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if stop || a == "-" || a == "" || a[0] != '-' {
			addInput(a)
			continue
		}
		if a == "--" {
			stop = true
			c.Items = append(c.Items, Item{Kind: Flag, Args: []string{a}})
			continue
		}
		if isPassThroughFlag(a) {
			pass(a)
		}
		if n := arity(a); n > 0 {
			end := i + 1 + n
			if end > len(args) {
				pass("missing argument to " + a)
				end = len(args)
			}
			it := Item{Kind: Flag, Args: args[i:end:end]}
			if end == i+1+n {
				v := args[i+1]
				switch a {
				case "-o", "--output":
					it.Kind, it.Path = Output, v
					setOutput(v)
				case "-x", "--language":
					it.Kind = Language
					setLang(v)
				case "-l", "-Xlinker", "--for-linker":
					it.Kind = LinkerInput
					linkerArgs = true
				}
			}
			c.Items = append(c.Items, it)
			i = end - 1
			continue
		}
		it := Item{Kind: Flag, Args: []string{a}}
		switch {
		case a == "-c" || a == "--compile":
			compileOnly = true
		case strings.HasPrefix(a, "--output="):
			it.Kind, it.Path = Output, a[len("--output="):]
			setOutput(it.Path)
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "-obj"):
			it.Kind, it.Path = Output, a[2:]
			setOutput(it.Path)
		case strings.HasPrefix(a, "--language="):
			it.Kind = Language
			setLang(a[len("--language="):])
		case strings.HasPrefix(a, "-x"):
			it.Kind = Language
			setLang(a[2:])
		case strings.HasPrefix(a, "-l") || strings.HasPrefix(a, "-Wl,"):
			it.Kind = LinkerInput
			linkerArgs = true
		case strings.HasPrefix(a, "-O") && a != "-ObjC" && a != "-ObjC++":
			c.OptLevel, c.OptGiven = a[2:], true
		case a == "--optimize":
			c.OptLevel, c.OptGiven = "", true
		case strings.HasPrefix(a, "--optimize="):
			c.OptLevel, c.OptGiven = a[len("--optimize="):], true
		case a == "-fno-lto":
			c.LTO = false
		case a == "-flto" || strings.HasPrefix(a, "-flto="):
			c.LTO = true
		}
		c.Items = append(c.Items, it)
	}
	if c.OptGiven && c.OptLevel == "" {
		c.OptLevel = "1"
	}
	c.DevNull = c.HasOutput && c.Output == "/dev/null"

	sources := len(c.Sources())
	switch {
	case passReason != "":
	case badLang != nil:
		pass("unknown language " + strconv.Quote(*badLang))
	case stdinNoLang:
		pass("standard input without -x")
	case header != "":
		pass("header input " + header)
	case c.LTO && compileOnly && sources > 0:
		pass("-flto objects hold bitcode only")
	case compileOnly && sources == 0:
		pass("-c without sources")
	}
	switch {
	case passReason != "":
		c.Mode, c.Reason = PassThrough, passReason
	case compileOnly:
		c.Mode = Compile
	case sources > 0:
		c.Mode = CompileAndLink
	case len(c.Inputs) > 0 || linkerArgs:
		c.Mode = Link
	default:
		c.Mode, c.Reason = PassThrough, "no inputs"
	}
	return c
}

// extLangs maps file extensions to the clang -x language they imply.
var extLangs = map[string]string{
	".c": "c", ".i": "cpp-output",
	".cc": "c++", ".cp": "c++", ".cpp": "c++", ".cxx": "c++", ".CPP": "c++",
	".c++": "c++", ".C": "c++", ".CC": "c++", ".cppm": "c++", ".ii": "c++-cpp-output",
	".m": "objective-c", ".mi": "objective-c-cpp-output",
	".mm": "objective-c++", ".M": "objective-c++", ".mii": "objective-c++-cpp-output",
	".s": "assembler", ".S": "assembler-with-cpp", ".sx": "assembler-with-cpp",
	".h": "c-header", ".hh": "c++-header", ".hpp": "c++-header", ".hxx": "c++-header",
	".H": "c++-header", ".h++": "c++-header", ".hp": "c++-header",
	".ll": "ir", ".bc": "ir",
	".cu": "cuda", ".hip": "hip", ".cl": "cl",
	".f": "f95", ".for": "f95", ".f77": "f95", ".f90": "f95", ".f95": "f95",
	".F": "f95-cpp-input", ".FOR": "f95-cpp-input", ".F90": "f95-cpp-input",
	".F95": "f95-cpp-input",
}

// knownLangs are the -x values clang 14 accepts (besides "none").
var knownLangs = map[string]bool{
	"c": true, "c++": true, "objective-c": true, "objective-c++": true,
	"cpp-output": true, "c++-cpp-output": true, "objective-c-cpp-output": true,
	"objc-cpp-output": true, "objective-c++-cpp-output": true, "objc++-cpp-output": true,
	"assembler": true, "assembler-with-cpp": true, "ir": true,
	"c-header": true, "c++-header": true, "objective-c-header": true,
	"objective-c++-header": true, "c-header-cpp-output": true,
	"c++-header-cpp-output": true, "c++-module": true, "c++-module-cpp-output": true,
	"cuda": true, "cuda-cpp-output": true, "hip": true, "hip-cpp-output": true,
	"cl": true, "clcpp": true, "renderscript": true, "f95": true,
	"f95-cpp-input": true, "ast": true, "pcm": true, "object": true,
	"lto-ir": true, "lto-bc": true, "precompiled-header": true,
}

// langOfPath is the language clang infers from a file name; files it does
// not recognise go to the linker.
func langOfPath(p string) string {
	if l, ok := extLangs[filepath.Ext(p)]; ok {
		return l
	}
	return "object"
}

// isSource reports whether clang compiles or assembles inputs of lang.
func isSource(lang string) bool {
	switch lang {
	case "", "object", "ast", "pcm", "lto-ir", "lto-bc", "precompiled-header":
		return false
	}
	return !isHeader(lang)
}

// isHeader reports whether lang makes clang write a precompiled header.
func isHeader(lang string) bool {
	return strings.HasSuffix(lang, "-header") || strings.HasSuffix(lang, "-header-cpp-output")
}

// embeds reports whether a source of lang gets embedded bitcode: the C
// family and LLVM IR. Assembly takes no -fembed-bitcode (the flag only
// warns, breaking -Werror), nor does anything clang hands to other tools.
func embeds(lang string) bool {
	switch lang {
	case "c", "c++", "objective-c", "objective-c++", "cpp-output", "c++-cpp-output",
		"objective-c-cpp-output", "objc-cpp-output", "objective-c++-cpp-output",
		"objc++-cpp-output", "ir", "c++-module", "c++-module-cpp-output":
		return true
	}
	return false
}
