package wrapper

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/toolchains"
	"github.com/gozyme/gozyme/toolchains/flang"
)

// LangFortran makes Main wrap flang-new-16 (gozyme-fc).
const LangFortran = "fortran"

// isFortran reports whether flang compiles sources of the -x language lang.
func isFortran(lang string) bool { return lang == "f95" || lang == "f95-cpp-input" }

// compileFortran runs a -c command line through flang unchanged, then
// embeds LLVM 14 bitcode (package flang) in each Fortran object it made.
func (d *driver) compileFortran(orig []string, cmd *Command) (int, error) {
	code, err := d.run(orig, nil)
	if err != nil || code != 0 {
		return code, err
	}
	for _, in := range cmd.Sources() {
		if !isFortran(in.Lang) {
			continue
		}
		obj := objectPath(cmd, in)
		step := compileArgs(cmd, []Input{in}, false)
		if !cmd.HasOutput {
			step = append(step, "-o", obj)
		}
		if err := d.embedFortran(step, in, obj); err != nil {
			return 1, err
		}
	}
	return 0, nil
}

// embedFortran puts the bitcode of the Fortran source in (compiled by the
// flang command line step) into the object obj flang wrote, in the
// .llvmbc and .llvmcmd sections gozyme-cc's objects have, and marks them
// excluded from links. Outputs that are not ELF objects are left alone.
// When flang cannot produce the bitcode the object stays as flang made it
// and a warning says that derivatives cannot go through it; a failure to
// rewrite the object is an error and removes it.
func (d *driver) embedFortran(step []string, in Input, obj string) error {
	if obj == "" || obj == "-" || !isRegularELF(obj) {
		return nil
	}
	tmp := &tempDir{}
	defer tmp.remove()
	dir, err := tmp.get()
	if err != nil {
		return err
	}
	ctx := context.Background()
	fc1, err := flang.FrontendArgs(ctx, d.clang, step)
	var bc []byte
	if err == nil {
		bc, err = flang.Bitcode(ctx, fc1, dir)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: warning: %s: no bitcode embedded, derivatives cannot go through this file: %v\n",
			d.prog, in.Path, err)
		return nil
	}
	bcFile := filepath.Join(dir, "embed.bc")
	cmdFile := filepath.Join(dir, "embed.cmd")
	if err := os.WriteFile(bcFile, bc, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(cmdFile, []byte(strings.Join(fc1, "\x00")+"\x00"), 0o644); err != nil {
		return err
	}
	_, err = toolchains.Run(ctx, "llvm-objcopy",
		"--add-section", ".llvmbc="+bcFile, "--add-section", ".llvmcmd="+cmdFile, obj)
	if err != nil {
		os.Remove(obj)
		return fmt.Errorf("embedding bitcode in %s: %v", obj, err)
	}
	return markObject(obj)
}

func isRegularELF(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && isELF(path)
}

// fortranLinkArgs are the arguments a link line needs for Fortran: for
// gozyme-fc (flang names the runtime libraries itself) the directory
// holding them; for gozyme-cc and gozyme-c++, the runtime libraries when
// an object or archive on the line is Fortran code (a C main calling
// Fortran, or a Fortran main program linked by the C compiler).
func (d *driver) fortranLinkArgs(cmd *Command) []string {
	if d.fortran {
		return []string{"-L" + flang.RuntimeDir(d.clang)}
	}
	driver, err := flang.Driver()
	if err != nil || !hasFortranInput(cmd) {
		// Without flang there is no Fortran runtime to add: a Fortran
		// object's link reports its symbols missing.
		return nil
	}
	return flang.RuntimeLibs(driver)
}

// fortranMarkers are byte strings only objects made by flang contain:
// calls into the Fortran runtime and the main program's symbol.
var fortranMarkers = [][]byte{[]byte("_FortranA"), []byte("_QQmain")}

// hasFortranInput reports whether an object or static archive on a link
// line (given by path, or by -l found in the -L directories) is Fortran
// code that needs the Fortran runtime.
func hasFortranInput(cmd *Command) bool {
	var dirs []string
	var libs []string
	for _, it := range cmd.Items {
		a := it.Args[0]
		switch {
		case it.Kind == LinkerInput && it.Path != "":
			if fileHasFortran(it.Path) {
				return true
			}
		case it.Kind == LinkerInput && a == "-l" && len(it.Args) == 2:
			libs = append(libs, it.Args[1])
		case it.Kind == LinkerInput && strings.HasPrefix(a, "-l") && len(a) > 2:
			libs = append(libs, a[2:])
		case a == "-L" && len(it.Args) == 2:
			dirs = append(dirs, it.Args[1])
		case strings.HasPrefix(a, "-L") && len(a) > 2:
			dirs = append(dirs, a[2:])
		}
	}
	for _, l := range libs {
		for _, dir := range dirs {
			name := "lib" + l + ".a"
			if strings.HasPrefix(l, ":") {
				name = l[1:]
			}
			if p := filepath.Join(dir, name); fileHasFortran(p) {
				return true
			}
		}
	}
	return false
}

// fileHasFortran reports whether the file at path holds one of the
// fortranMarkers. It reads the file in chunks, each starting with the end
// of the previous one so that no marker is split.
func fileHasFortran(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	const keep = 16 // longer than every marker
	buf := make([]byte, 1<<20)
	n := 0
	for {
		m, err := io.ReadFull(f, buf[n:])
		n += m
		for _, mk := range fortranMarkers {
			if bytes.Contains(buf[:n], mk) {
				return true
			}
		}
		if err != nil {
			return false
		}
		n = copy(buf, buf[n-keep:n])
	}
}
