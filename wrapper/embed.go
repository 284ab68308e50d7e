package wrapper

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gozyme/gozyme/custom"
	"github.com/gozyme/gozyme/lto"
	"github.com/gozyme/gozyme/toolchains"
)

// embedFlags make clang embed the frontend's module (before optimization)
// in .llvmbc. They also give Enzyme's __attribute__((enzyme("gradient",
// rule))) and Enzyme's other attributes a meaning (package custom), and
// put gozyme's <enzyme/enzyme> header on the include path. At -O0 clang marks the embedded
// functions optnone, as in its native code: the link removes it, so that
// the native object stays exactly clang's (-disable-O0-optnone would change
// it: a cold function keeps optsize and loses its alignment). When the
// command line asks clang itself to embed bitcode (-fembed-bitcode), those
// sections are the user's and stay exactly clang's (the command line
// clang records in them included): gozyme's bitcode comes from a second
// compile (addOwnBitcode), and the attribute macros and the header's
// directory are added only to sources that use an attribute or include
// <enzyme/enzyme>.
func embedFlags(cmd *Command, hdr []string) []string {
	if !userEmbeds(cmd) {
		return ownEmbedFlags(hdr)
	}
	for _, in := range cmd.Sources() {
		if embeds(in.Lang) && in.Path != "-" && mentionsAttribute(in.Path, includeDirs(cmd), forcedIncludes(cmd)) {
			return append(custom.DefineFlags(), hdr...)
		}
	}
	return nil
}

// ownEmbedFlags make clang embed gozyme's bitcode (with the attribute
// macros and the header's directory, hdr: driver.headerFlags).
func ownEmbedFlags(hdr []string) []string {
	return append(append([]string{"-Xclang", "-fembed-bitcode=all"}, custom.DefineFlags()...), hdr...)
}

// userEmbeds reports whether the command line asks clang to embed bitcode
// itself: -fembed-bitcode[=all|bitcode|marker], -fembed-bitcode-marker, or
// the same through -Xclang; the last one counts (=off turns it off).
func userEmbeds(cmd *Command) bool {
	on := false
	for _, it := range cmd.Items {
		if it.Kind != Flag {
			continue
		}
		for _, a := range it.Args {
			switch {
			case a == "-fembed-bitcode" || a == "-fembed-bitcode-marker":
				on = true
			case strings.HasPrefix(a, "-fembed-bitcode="):
				on = a != "-fembed-bitcode=off"
			}
		}
	}
	return on
}

// finishObject makes the object clang wrote for source in a fat object:
// gozyme's bitcode sections excluded from links, their command line
// reduced to what the link reads (no directory, so the object does not
// depend on where it was built), the source's name in the bitcode
// remapped as -ffile-prefix-map/-fdebug-prefix-map ask, and enzyme(...)
// attributes on declarations registered (scan: the TU's attribute scan
// before the compile, prescan, or nil). Objects of sources that embed
// nothing (assembly) and outputs that are not ELF objects are left alone.
// On failure the object is removed.
func (d *driver) finishObject(cmd *Command, in Input, obj string, scan *tuScan, tmp *tempDir) error {
	if obj == "" || obj == "-" || !isRegularELF(obj) || !embeds(in.Lang) {
		return nil
	}
	err := d.finishFat(cmd, in, obj, scan, tmp)
	if err != nil {
		os.Remove(obj)
	}
	return err
}

func (d *driver) finishFat(cmd *Command, in Input, obj string, scan *tuScan, tmp *tempDir) error {
	bcName, cmdName := ".llvmbc", ".llvmcmd"
	if userEmbeds(cmd) {
		if err := d.addOwnBitcode(cmd, in, obj, tmp); err != nil {
			return err
		}
		bcName, cmdName = lto.BitcodeSection, lto.CmdSection
	} else if err := markObject(obj); err != nil {
		return err
	}
	if err := lto.CleanCmdSection(obj, cmdName); err != nil {
		return fmt.Errorf("%s: %v", obj, err)
	}
	if err := remapSourceName(d.ctx(), cmd, in, obj, bcName, tmp); err != nil {
		return err
	}
	return d.registerDeclaredRules(cmd, in, obj, scan, tmp)
}

// addOwnBitcode compiles source in a second time, quietly and without the
// user's embedding flags or dependency files, as gozyme-cc compiles any
// source, and adds that object's bitcode and command line to obj as
// .gozyme.bc and .gozyme.cmd, excluded from links: the user's .llvmbc and
// .llvmcmd stay exactly as clang made them.
func (d *driver) addOwnBitcode(cmd *Command, in Input, obj string, tmp *tempDir) error {
	dir, err := tmp.get()
	if err != nil {
		return err
	}
	own := filepath.Join(dir, fmt.Sprintf("own-%d.o", in.Item))
	var args []string
	for _, it := range cmd.Items {
		switch it.Kind {
		case Language, Source, LinkerInput, Output:
			continue
		}
		a := it.Args[0]
		if a == "-c" || strings.HasPrefix(a, "-M") || strings.HasPrefix(a, "-Wp,") || strings.HasPrefix(a, "--write-") || isEmbedFlag(it.Args) {
			continue
		}
		args = append(args, it.Args...)
	}
	args = append(args, "-c", "-o", own, "-w", "-Qunused-arguments")
	args = append(appendSources(args, []Input{in}), ownEmbedFlags(d.headerFlags())...)
	ctx := d.ctx()
	if _, err := toolchains.RunPathEnv(ctx, d.clang, ownPassEnv(), args...); err != nil {
		return fmt.Errorf("%s: compiling gozyme's bitcode beside -fembed-bitcode's: %v", in.Path, err)
	}
	data, err := os.ReadFile(own)
	if err != nil {
		return err
	}
	var names []string
	var contents [][]byte
	for _, sec := range []struct{ from, to string }{{".llvmbc", lto.BitcodeSection}, {".llvmcmd", lto.CmdSection}} {
		b, err := lto.SectionBytes(bytes.NewReader(data), own, sec.from)
		if err != nil {
			return err
		}
		names, contents = append(names, sec.to), append(contents, b)
	}
	if err := lto.AddExcludedSections(obj, names, contents); err != nil {
		return fmt.Errorf("adding gozyme's bitcode to %s: %v", obj, err)
	}
	return nil
}

// isEmbedFlag reports an option asking clang to embed bitcode (directly or
// through -Xclang).
func isEmbedFlag(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-fembed-bitcode") {
			return true
		}
	}
	return false
}

// prefixMaps returns the -ffile-prefix-map and -fdebug-prefix-map pairs of
// a command line, longest prefix first (as clang applies them).
func prefixMaps(cmd *Command) [][2]string {
	var maps [][2]string
	for _, it := range cmd.Items {
		for _, a := range it.Args {
			for _, p := range []string{"-ffile-prefix-map=", "-fdebug-prefix-map="} {
				if v, ok := strings.CutPrefix(a, p); ok {
					if from, to, ok := strings.Cut(v, "="); ok {
						maps = append(maps, [2]string{from, to})
					}
				}
			}
		}
	}
	sort.SliceStable(maps, func(i, j int) bool { return maps[i][0] > maps[j][0] })
	return maps
}

// remapPath applies the first prefix map whose prefix is a leading path of p.
func remapPath(p string, maps [][2]string) (string, bool) {
	for _, m := range maps {
		if rest, ok := strings.CutPrefix(p, m[0]); ok && (rest == "" || rest[0] == '/' || strings.HasSuffix(m[0], "/")) {
			return m[1] + rest, true
		}
	}
	return "", false
}

// remapSourceName gives the module in the object's bitcode section the
// source name the prefix maps make of it: clang remaps the paths of debug
// information but keeps the module's source_filename as given (CMake gives
// absolute paths), which would make the object depend on the build
// directory.
func remapSourceName(ctx context.Context, cmd *Command, in Input, obj, section string, tmp *tempDir) error {
	maps := prefixMaps(cmd)
	if len(maps) == 0 || in.Path == "-" {
		return nil
	}
	to, ok := remapPath(in.Path, maps)
	if !ok {
		return nil
	}
	data, err := os.ReadFile(obj)
	if err != nil {
		return err
	}
	bc, err := lto.SectionBytes(bytes.NewReader(data), obj, section)
	if err != nil || bc == nil {
		return err
	}
	dir, err := tmp.get()
	if err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("remap-%d", in.Item))
	if err := os.WriteFile(base+".bc", bc, 0o644); err != nil {
		return err
	}
	text, err := toolchains.Run(ctx, "llvm-dis", "-o", "-", base+".bc")
	if err != nil {
		return fmt.Errorf("%s: reading its embedded bitcode: %v", obj, err)
	}
	lines := strings.SplitN(string(text), "\n", 4)
	changed := false
	for i, l := range lines[:len(lines)-1] {
		if strings.HasPrefix(l, "source_filename = ") {
			lines[i] = "source_filename = " + llvmString(to)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	if err := os.WriteFile(base+".ll", []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return err
	}
	if _, err := toolchains.Run(ctx, "llvm-as", base+".ll", "-o", base+"-remapped.bc"); err != nil {
		return fmt.Errorf("%s: remapping its source name: %v", obj, err)
	}
	remapped, err := os.ReadFile(base + "-remapped.bc")
	if err != nil {
		return err
	}
	return lto.ReplaceSection(obj, section, remapped)
}

// llvmString quotes s as an LLVM IR string.
func llvmString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			b.WriteString(`\` + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}
