package wrapper

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gozyme/gozyme/custom"
	"github.com/gozyme/gozyme/lto"
	"github.com/gozyme/gozyme/toolchains"
)

// registerDeclaredRules adds Enzyme registration globals for the
// enzyme(...) attributes the TU of source in sees on declarations to the
// embedded bitcode of obj, which clang has just written (see
// custom.DeclaredInAST for why). TUs whose source and headers never mention
// the attribute (a textual scan) cost nothing more. Where a computed
// #include hides which headers the TU reads, the headers the compile
// listed are scanned instead, or without a list the preprocessor decides.
// scan is the scan made before the compile (prescan), or nil.
func (d *driver) registerDeclaredRules(cmd *Command, in Input, obj string, scan *tuScan, tmp *tempDir) error {
	if in.Path == "-" || obj == "" || obj == "-" || !isELF(obj) {
		return nil
	}
	if scan == nil {
		scan = &tuScan{mention: scanAttribute(in.Path, includeDirs(cmd), forcedIncludes(cmd))}
	}
	mention := scan.mention
	if mention == noMention {
		return nil
	}
	ctx := d.ctx()
	if mention == mayMention {
		if found, ok := listedMention(scan.headers, in.Path, forcedIncludes(cmd), cmd); ok {
			if !found {
				return nil
			}
		} else if found, err := d.preprocessedMention(cmd, in); err != nil || !found {
			return err
		}
	}
	dump, err := toolchains.RunPathEnv(ctx, d.clang, ownPassEnv(), syntaxArgs(cmd, in, d.headerFlags())...)
	if err != nil {
		return fmt.Errorf("%s: reading its enzyme(...) attributes: %v", in.Path, err)
	}
	decls, err := custom.DeclaredInAST(bytes.NewReader(dump))
	if err != nil {
		return fmt.Errorf("%s: %v", in.Path, err)
	}
	if len(decls) == 0 {
		return nil
	}
	bc, err := os.ReadFile(obj)
	if err != nil {
		return err
	}
	section := lto.BitcodeSectionOf(bytes.NewReader(bc))
	if bc, err = lto.SectionBytes(bytes.NewReader(bc), obj, section); err != nil || bc == nil {
		return err
	}
	dir, err := tmp.get()
	if err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", stem(obj), in.Item))
	if err := os.WriteFile(base+".bc", bc, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+"-rules.ll", []byte(custom.RegistrationIR(decls, in.Path)), 0o644); err != nil {
		return err
	}
	if _, err := toolchains.Run(ctx, "llvm-link", base+".bc", base+"-rules.ll", "-o", base+"-linked.bc"); err != nil {
		return fmt.Errorf("%s: registering its enzyme(...) attributes: %v", in.Path, err)
	}
	linked, err := os.ReadFile(base + "-linked.bc")
	if err != nil {
		return err
	}
	return lto.ReplaceSection(obj, section, linked)
}

// preprocessedMention reports whether the preprocessed text of source in
// holds an Enzyme annotation. Its output is a small fraction of the
// frontend's work, where the AST dump would be a second full frontend pass
// and a JSON text many times the source's size.
func (d *driver) preprocessedMention(cmd *Command, in Input) (bool, error) {
	pp, err := toolchains.RunPathEnv(d.ctx(), d.clang, ownPassEnv(), preprocessArgs(cmd, in, d.headerFlags())...)
	if err != nil {
		return false, fmt.Errorf("%s: reading its enzyme(...) attributes: %v", in.Path, err)
	}
	return bytes.Contains(pp, []byte(annotationInText)), nil
}

// syntaxArgs is the command line dumping the AST of one source as JSON:
// the compile's options without outputs, dependency files and inputs.
func syntaxArgs(cmd *Command, in Input, hdr []string) []string {
	out := frontendOptions(cmd)
	out = append(out, "-fsyntax-only", "-Xclang", "-ast-dump=json", "-w", "-Qunused-arguments")
	out = append(append(out, custom.DefineFlags()...), hdr...)
	return appendSources(out, []Input{in})
}

// annotationInText starts the annotation string every attribute macro of
// custom.AttributeMacros expands to (and any annotate attribute the user
// writes with Enzyme's prefix), as the preprocessor prints it.
const annotationInText = `"` + custom.AnnotationPrefix

// preprocessArgs is the command line printing the preprocessed text of one
// source, with the attribute macros defined, on stdout.
func preprocessArgs(cmd *Command, in Input, hdr []string) []string {
	out := frontendOptions(cmd)
	out = append(out, "-E", "-P", "-o", "-", "-w", "-Qunused-arguments")
	out = append(append(out, custom.DefineFlags()...), hdr...)
	return appendSources(out, []Input{in})
}

// frontendOptions are the compile's options without outputs, dependency
// files and inputs.
func frontendOptions(cmd *Command) []string {
	var out []string
	for _, it := range cmd.Items {
		switch it.Kind {
		case Language, Source, LinkerInput, Output:
			continue
		}
		a := it.Args[0]
		if a == "-c" || strings.HasPrefix(a, "-M") || strings.HasPrefix(a, "-Wp,") || strings.HasPrefix(a, "--write-") {
			continue
		}
		out = append(out, it.Args...)
	}
	return out
}

// includeDirs lists the -I, -iquote, -isystem and -idirafter directories
// of a command line, then those of CPATH, C_INCLUDE_PATH and
// CPLUS_INCLUDE_PATH and /usr/local/include, where a library installed by
// hand may declare its derivatives (not /usr/include and the compiler's
// own: system headers do not carry enzyme attributes).
func includeDirs(cmd *Command) []string {
	var dirs []string
	for _, it := range cmd.Items {
		for _, opt := range []string{"-I", "-iquote", "-isystem", "-idirafter", "--include-directory="} {
			a := it.Args[0]
			switch {
			case a == opt && len(it.Args) > 1:
				dirs = append(dirs, it.Args[1])
			case strings.HasPrefix(a, opt) && len(a) > len(opt):
				dirs = append(dirs, a[len(opt):])
			}
		}
	}
	for _, env := range []string{"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"} {
		for _, d := range filepath.SplitList(os.Getenv(env)) {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	return append(dirs, "/usr/local/include")
}

var (
	attrUse = regexp.MustCompile(`(^|[^\w])(enzyme[ \t]*\(|enzyme_inactive\b|enzyme_function_like\b)|<enzyme/enzyme>`)
)

// forcedIncludes lists the files -include and -imacros name.
func forcedIncludes(cmd *Command) []string {
	var files []string
	for _, it := range cmd.Items {
		a := it.Args[0]
		switch {
		case (a == "-include" || a == "-imacros") && len(it.Args) > 1:
			files = append(files, it.Args[1])
		case strings.HasPrefix(a, "--include="):
			files = append(files, a[len("--include="):])
		}
	}
	return files
}

// mentionsAttribute reports whether a source, the files forced in with
// -include, or a header they include (found next to the including file or
// in dirs) mentions enzyme(, or may do so (scanAttribute).
func mentionsAttribute(src string, dirs, forced []string) bool {
	return scanAttribute(src, dirs, forced) != noMention
}

// attributeMention is what the textual scan of a TU's files says.
type attributeMention int

const (
	noMention  attributeMention = iota
	mentions                    // a file the TU includes uses an attribute
	mayMention                  // a computed #include (a macro naming the header): only the preprocessor knows
)

// scanAttribute scans a source, the files forced in with -include, and the
// headers they include (found next to the including file or in dirs) for
// a use of Enzyme's attributes. A use found anywhere wins over a computed
// #include (whose header the scan cannot follow).
func scanAttribute(src string, dirs, forced []string) attributeMention {
	seen := map[string]bool{}
	computed := false
	var visit func(path string) bool
	visit = func(path string) bool {
		if seen[path] || len(seen) > 5000 {
			return false
		}
		seen[path] = true
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		if bytes.Contains(data, []byte("enzyme")) && attrUse.Match(data) {
			return true
		}
		for _, inc := range includeDirectives(data) {
			if inc.computed {
				computed = true
				continue
			}
			name := inc.name
			for _, dir := range append([]string{filepath.Dir(path)}, dirs...) {
				p := filepath.Join(dir, name)
				if filepath.IsAbs(name) {
					p = name
				}
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					if visit(filepath.Clean(p)) {
						return true
					}
					break
				}
			}
		}
		return false
	}
	for _, f := range forced {
		if visit(f) {
			return mentions
		}
	}
	switch {
	case visit(src):
		return mentions
	case computed:
		return mayMention
	}
	return noMention
}
