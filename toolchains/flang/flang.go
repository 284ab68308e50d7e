// Package flang is gozyme's bridge to Fortran: it locates flang-new-16,
// turns a Fortran compile into LLVM 14 bitcode that the link-time AD
// pipeline can read (typed pointers, LLVM 14 syntax), and names the
// Fortran runtime libraries a link needs. The native code of a Fortran
// object is flang's own.
//
// The bitcode takes the route through FIR: the frontend's own command
// (flang-new -fc1, as the driver would run it) with -emit-fir; memory
// intrinsics renamed to their typed-pointer names (flang-16's
// typed-pointer code generation crashes on their opaque names, as in
// character concatenation); then the frontend again, from FIR to
// typed-pointer LLVM IR at the compile's -O level but at least -O1 (see
// embedOptLevel); then Normalize, AddFuncLocations (source lines for
// diagnostics, from the FIR) and llvm-as-14.
package flang

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gozyme/gozyme/toolchains"
)

// Version is the flang major version gozyme drives.
const Version = "16"

// Tool returns the path of a flang-16 tool given its base name
// ("flang-new", "bbc", ...). It looks, in order, in cfg.FlangBin
// (GOZYME_FLANG_BIN), for NAME-16 on $PATH and in /usr/lib/llvm-16/bin.
func Tool(cfg toolchains.Config, name string) (string, error) {
	return toolchains.FindVersioned(cfg.FlangBin, "GOZYME_FLANG_BIN", name, Version, "install flang-"+Version+": make deps-fortran")
}

// Driver returns the path of flang-new-16.
func Driver(cfg toolchains.Config) (string, error) { return Tool(cfg, "flang-new") }

// RuntimeDir is the directory holding the Fortran runtime libraries of the
// flang-new at driver: its installation's lib directory.
func RuntimeDir(driver string) string {
	if r, err := filepath.EvalSymlinks(driver); err == nil {
		driver = r
	}
	return filepath.Join(filepath.Dir(filepath.Dir(driver)), "lib")
}

// RuntimeLibs are the linker arguments for the Fortran runtime of the
// flang-new at driver, in link order: the main program's entry (taken from
// the archive only when no other main is defined), the runtime, its
// decimal conversions and libm.
func RuntimeLibs(driver string) []string {
	return []string{"-L" + RuntimeDir(driver), "-lFortran_main", "-lFortranRuntime", "-lFortranDecimal", "-lm"}
}

// FrontendArgs returns the flang-new -fc1 arguments (without the program
// and "-fc1") that the driver at driver runs for a compile command line
// (one source, -c, -o), as it prints them under -###.
func FrontendArgs(ctx context.Context, driver string, compile []string) ([]string, error) {
	args := append([]string{"-###"}, compile...)
	toolchains.ConfigOf(ctx).LogCommand(append([]string{driver}, args...))
	cmd := exec.CommandContext(ctx, driver, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, &toolchains.ToolError{Argv: append([]string{driver}, args...), Stderr: out.String(), Err: err}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, " \"") {
			continue
		}
		job := toolchains.SplitJob(line)
		if len(job) > 1 && job[1] == "-fc1" {
			return job[2:], nil
		}
	}
	return nil, fmt.Errorf("%s -### printed no frontend command", filepath.Base(driver))
}

// Bitcode compiles one Fortran source to LLVM 14 bitcode along the FIR
// route with the flang-new at driver, given the frontend arguments of its
// native compile (see FrontendArgs), with scratch files in dir. It returns
// the bitcode; the frontend's diagnostics (already shown by the native
// compile) appear only in the error when it fails.
func Bitcode(ctx context.Context, driver string, fc1 []string, dir string) ([]byte, error) {
	// The frontend's arguments with the action and output left out, and
	// (for the second step, whose input is FIR) the trailing "-x LANG FILE".
	var opts []string
	lastX := -1
	for i := 0; i < len(fc1); i++ {
		switch a := fc1[i]; {
		case a == "-o" && i+1 < len(fc1):
			i++
		case strings.HasPrefix(a, "-emit-") || a == "-E" || a == "-fsyntax-only":
		default:
			if a == "-x" {
				lastX = len(opts)
			}
			opts = append(opts, a)
		}
	}
	if lastX < 0 {
		return nil, fmt.Errorf("unexpected frontend command (no -x): %s", strings.Join(fc1, " "))
	}
	fir := filepath.Join(dir, "module.fir")
	args := append(append([]string{"-fc1"}, opts...), "-emit-fir", "-mmlir", "--mlir-print-debuginfo", "-o", fir)
	if _, err := toolchains.RunPath(ctx, driver, args...); err != nil {
		return nil, err
	}
	text, err := os.ReadFile(fir)
	if err != nil {
		return nil, err
	}
	locs := FuncLines(string(text))
	if err := os.WriteFile(fir, []byte(TypedIntrinsicNames(string(text))), 0o644); err != nil {
		return nil, err
	}
	ll := filepath.Join(dir, "module16.ll")
	args = append(append([]string{"-fc1"}, withoutOptLevel(opts[:lastX])...), "-emit-llvm", embedOptLevel(opts),
		"-mmlir", "--opaque-pointers=false", "-mllvm", "-opaque-pointers=0", "-o", ll, fir)
	if _, err := toolchains.RunPath(ctx, driver, args...); err != nil {
		return nil, err
	}
	text, err = os.ReadFile(ll)
	if err != nil {
		return nil, err
	}
	ll14 := filepath.Join(dir, "module.ll")
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(ll14, []byte(AddFuncLocations(Normalize(string(text)), locs, cwd)), 0o644); err != nil {
		return nil, err
	}
	bc := filepath.Join(dir, "module.bc")
	if _, err := toolchains.Run(ctx, "llvm-as", ll14, "-o", bc); err != nil {
		return nil, fmt.Errorf("flang's IR is not LLVM %s IR after normalization (please report): %w", toolchains.LLVMVersion, err)
	}
	return os.ReadFile(bc)
}

// embedOptLevel is the -O level the embedded IR is made at: the
// compile's, but at least -O1. Below -O1 flang-16 leaves SUM,
// DOT_PRODUCT, ... as runtime calls (at -O1 and up it simplifies them into
// loops the AD engine can differentiate) and builds array descriptors as
// first-class aggregates that hide their base pointer from the AD engine's
// activity analysis (scalar replacement at -O1 stores it directly).
func embedOptLevel(opts []string) string {
	level := "0"
	for _, a := range opts {
		if strings.HasPrefix(a, "-O") {
			level = a[2:]
		}
	}
	if level == "0" || level == "" {
		return "-O1"
	}
	return "-O" + level
}

func withoutOptLevel(opts []string) []string {
	var out []string
	for _, a := range opts {
		if !strings.HasPrefix(a, "-O") {
			out = append(out, a)
		}
	}
	return out
}

// opaqueIntrinsic matches the memory intrinsics flang-16 names with their
// opaque-pointer mangling (llvm.memmove.p0.p0.i64, llvm.memset.p0.i64).
var opaqueIntrinsic = regexp.MustCompile(`@llvm\.(memcpy|memmove|memset)((?:\.p0)+)\.(i32|i64)\b`)

// TypedIntrinsicNames renames, in FIR text, the memory intrinsics flang-16
// calls by their opaque-pointer names to their typed-pointer names (the
// pointers are i8*), which typed-pointer code generation requires.
func TypedIntrinsicNames(fir string) string {
	return opaqueIntrinsic.ReplaceAllStringFunc(fir, func(s string) string {
		m := opaqueIntrinsic.FindStringSubmatch(s)
		return "@llvm." + m[1] + strings.ReplaceAll(m[2], ".p0", ".p0i8") + "." + m[3]
	})
}
