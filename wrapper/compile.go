package wrapper

import (
	"fmt"
	"path/filepath"
	"strings"
)

// compile runs a -c command line and marks the objects it makes. Sources
// that take embedded bitcode and sources that do not (assembly) are
// compiled by separate clang calls, since the embedding flag makes clang
// warn about the others.
func (d *driver) compile(orig, expanded []string, cmd *Command) (int, error) {
	if cu := cudaSources(cmd); len(cu) > 0 && !(cmd.HasOutput && len(cmd.Sources()) > 1) {
		return d.compileWithCUDA(cmd, cu)
	}
	var emb, plain []Input
	for _, in := range cmd.Sources() {
		if embeds(in.Lang) {
			emb = append(emb, in)
		} else {
			plain = append(plain, in)
		}
	}
	tmp := d.tempDir()
	defer tmp.remove()
	type call struct {
		args []string
		srcs []Input
	}
	var calls []call
	switch {
	case len(plain) == 0:
		calls = []call{{append(orig, embedFlags(cmd, d.headerFlags())...), emb}}
	case len(emb) == 0 || cmd.HasOutput:
		// With -o and several sources clang reports the error itself.
		calls = []call{{orig, plain}}
	default:
		a, err := argsFile(append(compileArgs(cmd, emb, true), embedFlags(cmd, d.headerFlags())...), tmp)
		if err != nil {
			return 1, err
		}
		b, err := argsFile(compileArgs(cmd, plain, false), tmp)
		if err != nil {
			return 1, err
		}
		calls = []call{{a, emb}, {b, plain}}
	}
	for _, c := range calls {
		var env []string
		var scan *tuScan
		if !userEmbeds(cmd) {
			env, scan = d.prescan(cmd, c.srcs, tmp)
		}
		code, err := d.run(c.args, env)
		if err != nil || code != 0 {
			return code, err
		}
		for _, in := range c.srcs {
			if err := d.finishObject(cmd, in, objectPath(cmd, in), scan, tmp); err != nil {
				return 1, err
			}
		}
	}
	return 0, nil
}

// compileArgs rebuilds a -c command line for some of its sources: every
// option kept in place, the -x options and inputs dropped, and the chosen
// sources appended (each with its -x language when it had one). Linker
// inputs stay only when keepLinkerInputs is set, so that clang's
// "linker input unused" warnings appear once.
func compileArgs(cmd *Command, srcs []Input, keepLinkerInputs bool) []string {
	var out []string
	for _, it := range cmd.Items {
		switch it.Kind {
		case Language, Source:
			continue
		case LinkerInput:
			if !keepLinkerInputs {
				continue
			}
		}
		out = append(out, it.Args...)
	}
	return appendSources(out, srcs)
}

// appendSources appends inputs, giving each the -x language it had.
func appendSources(out []string, srcs []Input) []string {
	for i, in := range srcs {
		if in.FromX {
			out = append(out, "-x", in.Lang)
		}
		out = append(out, in.Path)
		if in.FromX && i+1 < len(srcs) {
			out = append(out, "-x", "none")
		}
	}
	return out
}

// objectPath is where clang -c writes the object for a source: the -o
// file, else the source's base name with .o in the working directory
// (standard input gives "-.o").
func objectPath(cmd *Command, in Input) string {
	if cmd.HasOutput {
		return cmd.Output
	}
	return stem(in.Path) + ".o"
}

// stem is the file name without directory and last extension, as LLVM's
// sys::path::stem computes it.
func stem(p string) string {
	base := filepath.Base(p)
	if p == "-" || base == "." || base == ".." {
		return base
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return base[:i]
	}
	return base
}

// compileAndLink compiles each source to a temporary fat object with the
// same options, then links with the objects in the sources' places. The
// steps run with -Qunused-arguments (each sees options only the other
// uses); the warnings clang gives about unused arguments of the whole line,
// errors under -Werror, come from clang itself first (driverDiagnostics),
// so a configure probe gets clang's answer.
func (d *driver) compileAndLink(expanded []string, cmd *Command) (int, error) {
	if code, stop := d.driverDiagnostics(expanded); stop {
		return code, nil
	}
	tmp := d.tempDir()
	defer tmp.remove()
	dir, err := tmp.get()
	if err != nil {
		return 1, err
	}
	objs := map[int]string{}
	for k, in := range cmd.Sources() {
		obj := filepath.Join(dir, fmt.Sprintf("%d-%s.o", k, stem(in.Path)))
		if in.Lang == "cuda" {
			if code, err := d.compileCUDA(cmd, in, obj, tmp); err != nil || code != 0 {
				return code, err
			}
			objs[in.Item] = obj
			continue
		}
		step := compileStepArgs(cmd, in, obj, d.headerFlags())
		args, err := argsFile(step, tmp)
		if err != nil {
			return 1, err
		}
		var env []string
		var scan *tuScan
		if !(d.fortran && isFortran(in.Lang)) && !userEmbeds(cmd) {
			env, scan = d.prescan(cmd, []Input{in}, tmp)
		}
		code, err := d.run(args, env)
		if err != nil || code != 0 {
			return code, err
		}
		if d.fortran && isFortran(in.Lang) {
			err = d.embedFortran(step, in, obj) // which marks the object
		} else {
			err = d.finishObject(cmd, in, obj, scan, tmp)
		}
		if err != nil {
			return 1, err
		}
		objs[in.Item] = obj
	}
	var link []string
	for i, it := range cmd.Items {
		switch {
		case it.Kind == Language:
		case objs[i] != "":
			link = append(link, objs[i])
		default:
			link = append(link, it.Args...)
		}
	}
	// The objects just compiled are not flang's, or are gozyme-fc's (which
	// always adds the runtime's directory): the other inputs decide.
	fortranInput := d.needsFortranScan() && d.scanLink(cmd).fortran
	link = append(append(link, d.fortranLinkArgs(fortranInput)...), "-Qunused-arguments")
	link, err = argsFile(link, tmp)
	if err != nil {
		return 1, err
	}
	// Not plain: the scan did not see the fresh objects. The link names
	// each in messages by its source.
	sources := map[string]string{}
	for _, in := range cmd.Sources() {
		sources[objs[in.Item]] = in.Path
	}
	return d.linkNaming(link, cmd, false, sources)
}

// compileStepArgs is the -c command line compiling one source of a
// compile-and-link line to obj. -Qunused-arguments keeps link-only options
// from drawing warnings clang would not give for the whole line. A
// dependency file keeps the name clang would give it.
func compileStepArgs(cmd *Command, in Input, obj string, hdr []string) []string {
	var out []string
	depFile, hasMF := false, false
	for _, it := range cmd.Items {
		switch it.Kind {
		case Language, Source, LinkerInput, Output:
			continue
		}
		switch a := it.Args[0]; {
		case a == "-MD" || a == "-MMD" || a == "--write-dependencies" || a == "--write-user-dependencies":
			depFile = true
		case strings.HasPrefix(a, "-MF"):
			hasMF = true
		}
		out = append(out, it.Args...)
	}
	if depFile && !hasMF {
		name := stem(in.Path) + ".d"
		if cmd.HasOutput {
			name = strings.TrimSuffix(cmd.Output, filepath.Ext(cmd.Output)) + ".d"
		}
		out = append(out, "-MF", name)
	}
	out = append(out, "-c", "-o", obj)
	out = appendSources(out, []Input{in})
	if embeds(in.Lang) && !cmd.LTO {
		out = append(out, embedFlags(cmd, hdr)...)
	}
	return append(out, "-Qunused-arguments")
}

// compileWithCUDA compiles a -c line with CUDA sources: each CUDA source
// by compileCUDA, the others as the line would without them.
func (d *driver) compileWithCUDA(cmd *Command, cu []Input) (int, error) {
	tmp := d.tempDir()
	defer tmp.remove()
	for _, in := range cu {
		if code, err := d.compileCUDA(cmd, in, objectPath(cmd, in), tmp); err != nil || code != 0 {
			return code, err
		}
	}
	var rest []Input
	for _, in := range cmd.Sources() {
		if in.Lang != "cuda" {
			rest = append(rest, in)
		}
	}
	if len(rest) == 0 {
		return 0, nil
	}
	args := compileArgs(cmd, rest, true)
	return d.compile(args, args, Classify(args))
}
