package wrapper

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/lto"
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
	tmp := d.tempDir()
	defer tmp.remove()
	dir, err := tmp.get()
	if err != nil {
		return err
	}
	ctx := d.ctx()
	fc1, err := flang.FrontendArgs(ctx, d.clang, step)
	var bc []byte
	if err == nil {
		bc, err = flang.Bitcode(ctx, d.clang, fc1, dir)
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
	if err := os.WriteFile(cmdFile, []byte(strings.Join(lto.LinkTimeArgs(fc1), "\x00")+"\x00"), 0o644); err != nil {
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

// fortranLinkArgs are the arguments a link line needs for Fortran: for
// gozyme-fc (flang names the runtime libraries itself) the directory
// holding them; for gozyme-cc and gozyme-c++, the runtime libraries when
// an object or archive on the line is Fortran code (fortranInput, see
// scanLink: a C main calling Fortran, or a Fortran main program linked by
// the C compiler).
func (d *driver) fortranLinkArgs(fortranInput bool) []string {
	if d.fortran {
		return []string{"-L" + flang.RuntimeDir(d.clang)}
	}
	driver, err := flang.Driver(d.cfg.Tools)
	if err != nil || !fortranInput {
		// Without flang there is no Fortran runtime to add: a Fortran
		// object's link reports its symbols missing.
		return nil
	}
	return flang.RuntimeLibs(driver)
}

// needsFortranScan reports whether a link's inputs are looked at for
// Fortran code: by gozyme-cc and gozyme-c++, when flang is installed.
func (d *driver) needsFortranScan() bool {
	_, err := flang.Driver(d.cfg.Tools)
	return !d.fortran && err == nil
}

// fortranMarkers are byte strings only objects made by flang contain:
// calls into the Fortran runtime and the main program's symbol.
var fortranMarkers = [][]byte{[]byte("_FortranA"), []byte("_QQmain")}
