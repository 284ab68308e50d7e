package wrapper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/lto"
)

// fortranCases are gozyme-fc command lines as Fortran builds write them
// (TestClassify runs them with classifyCases).
var fortranCases = []classifyCase{
	{name: "fc -J dir", line: "-O2 -J mod -c energy.f90 -o energy.o", mode: Compile,
		inputs: []string{"energy.f90:f95"}, output: "energy.o", opt: "2"},
	{name: "fc -module-dir", line: "-module-dir mod -c a.f90", mode: Compile,
		inputs: []string{"a.f90:f95"}, opt: "0"},
	{name: "fc joined -J", line: "-Jmod -c a.F90", mode: Compile,
		inputs: []string{"a.F90:f95-cpp-input"}, opt: "0"},
	{name: "fc fixed form", line: "-ffixed-form -c legacy.f", mode: Compile,
		inputs: []string{"legacy.f:f95"}, opt: "0"},
	{name: "fc intrinsic modules", line: "-fintrinsic-modules-path /opt/mods -c m.f90", mode: Compile,
		inputs: []string{"m.f90:f95"}, opt: "0"},
	{name: "fc compile and link", line: "-O1 prog.f90 helper.o -o prog", mode: CompileAndLink,
		inputs: []string{"prog.f90:f95", "helper.o:object"}, output: "prog", opt: "1"},
	{name: "fc mmlir", line: "-mmlir --opaque-pointers=false -c a.f90", mode: Compile,
		inputs: []string{"a.f90:f95"}, opt: "0"},
	{name: "fc frontend", line: "-fc1 -emit-obj a.f90", mode: PassThrough, opt: "0"},
}

// TestHasFortranInput finds Fortran objects on a link line by path and by
// -l in a -L directory, and nothing in C objects (the scan scanLink runs).
func TestHasFortranInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c := write("c.o", "\x7fELF main printf")
	f := write("f.o", "\x7fELF _FortranAioBeginExternalListOutput")
	prog := write("p.o", "\x7fELF _QQmain")
	write("lib/libfm.a", "!<arch>\n _FortranAAllocatableAllocate")
	write("lib/libcm.a", "!<arch>\n sin cos")
	for _, c := range []struct {
		line string
		want bool
	}{
		{c + " -o prog -lm", false},
		{c + " " + f + " -o prog", true},
		{c + " " + prog + " -o prog", true},
		{c + " -L " + dir + "/lib -lcm -o prog", false},
		{c + " -L" + dir + "/lib -lfm -o prog", true},
		{c + " -L " + dir + "/lib -l fm -o prog", true},
		{c + " -lfm -o prog", false}, // not in any -L directory given
	} {
		if _, got := lto.ScanInputs(linkerArgs(Classify(strings.Fields(c.line)), nil), fortranMarkers); got != c.want {
			t.Errorf("Fortran input in %s = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestHasFortranInputLargeObject finds a marker at the end of an object
// larger than a read buffer, and none in zeros.
func TestHasFortranInputLargeObject(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.o")
	data := append(append([]byte("\x7fELF"), make([]byte, 1<<20-8)...), "_QQmain"...)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, found := lto.ScanInputs([]string{p}, fortranMarkers); !found {
		t.Error("marker at the end of a large object not found")
	}
	if err := os.WriteFile(p, append([]byte("\x7fELF"), make([]byte, 3<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, found := lto.ScanInputs([]string{p}, fortranMarkers); found {
		t.Error("marker found in zeros")
	}
}
