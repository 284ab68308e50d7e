package gpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// build is one CUDA program built with gozyme-c++ -c, its device
// pipeline's intermediate files kept.
type build struct {
	obj    string // the fat host object, PTX embedded
	keep   string // GOZYME_KEEP_TEMPS directory
	stderr string
}

// buildCUDA compiles kernels/NAME.cu with gozyme-c++ -O2 -c (extra options
// and environment added) and returns the build.
func buildCUDA(t *testing.T, name string, env []string, args ...string) build {
	t.Helper()
	b, err := tryBuildCUDA(t, name, env, args...)
	if err != nil {
		t.Fatalf("gozyme-c++ %s.cu: %v\n%s", name, err, b.stderr)
	}
	return b
}

func tryBuildCUDA(t *testing.T, name string, env []string, args ...string) (build, error) {
	t.Helper()
	dir := t.TempDir()
	b := build{obj: filepath.Join(dir, name+".o"), keep: filepath.Join(dir, "keep")}
	src := filepath.Join(repoRoot, "tests", "gpu", "kernels", name+".cu")
	cmd := exec.Command(gozymeCXX(t), append([]string{"-O2", "-c", src, "-o", b.obj}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOZYME_KEEP_TEMPS="+b.keep, "GOZYME_GPU_REPORT=1"), env...)
	out, err := cmd.CombinedOutput()
	b.stderr = string(out)
	return b, err
}

// keptFile returns the one kept file matching pattern (a glob under the
// build's GOZYME_KEEP_TEMPS directory).
func (b build) keptFile(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(b.keep, "*", pattern))
	if len(m) != 1 {
		t.Fatalf("want one kept file %s, found %v", pattern, m)
	}
	return m[0]
}

// differentiated is the device module after AD, as text.
func (b build) differentiated(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(b.keptFile(t, "device-*/differentiated.ll"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// ptx is the PTX llc-14 generated.
func (b build) ptx(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(b.keptFile(t, "*.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var (
	reLayout   = regexp.MustCompile(`(?m)^target datalayout = ".*"$`)
	reTriple   = regexp.MustCompile(`(?m)^target triple = ".*"$`)
	reAddrSp   = regexp.MustCompile(` addrspace\(\d+\)`)
	reTarget   = regexp.MustCompile(`"target-(cpu|features)"="[^"]*"`)
	reNVVM     = regexp.MustCompile(`@llvm\.nvvm\.([A-Za-z0-9_.]+)`)
	reLibdev   = regexp.MustCompile(`@__nv_(?:fast_)?([A-Za-z0-9_]+)`)
	reActive   = regexp.MustCompile(`asm sideeffect "activemask\.b32 \$0;", "=r"\(\)`)
	reKernelMD = regexp.MustCompile(`@([^\s,]+), !"kernel"`)
)

// retarget turns a differentiated NVPTX module into x86-64 IR for the
// emulator (emu/cudart_emu.c): address spaces dropped (casts between them
// become no-op bitcasts), NVVM intrinsics renamed to the emulator's
// gzemu_* functions, libdevice's math to libm's, and one exported
// trampoline gozyme_emu_KERNEL(void **args) per kernel, which the
// emulator's cudaLaunchKernel finds by name; every other definition is
// made internal, so that the host object's symbols (device variables'
// host shadows) do not clash.
func retarget(t *testing.T, text string) string {
	t.Helper()
	var kernelNames []string
	for _, m := range reKernelMD.FindAllStringSubmatch(text, -1) {
		kernelNames = append(kernelNames, strings.Trim(m[1], `"`))
	}
	text = reLayout.ReplaceAllString(text, `target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"`)
	text = reTriple.ReplaceAllString(text, `target triple = "x86_64-pc-linux-gnu"`)
	text = reAddrSp.ReplaceAllString(text, "")
	text = strings.ReplaceAll(text, "addrspacecast", "bitcast")
	text = reTarget.ReplaceAllString(text, "")
	text = reNVVM.ReplaceAllStringFunc(text, func(s string) string {
		return "@gzemu_nvvm_" + strings.ReplaceAll(strings.TrimPrefix(s, "@llvm.nvvm."), ".", "_")
	})
	text = reLibdev.ReplaceAllString(text, "@$1")
	if reActive.MatchString(text) {
		text = reActive.ReplaceAllString(text, "@gzemu_activemask()") + "\ndeclare i32 @gzemu_activemask()\n"
	}
	m, err := irutil.ParseText("emulated.ll", []byte(text))
	if err != nil {
		t.Fatalf("parsing the retargeted module: %v", err)
	}
	byName := map[string]*ir.Func{}
	for _, f := range m.Funcs {
		byName[f.Name()] = f
		if len(f.Blocks) > 0 {
			f.Linkage = enum.LinkageInternal
			f.Visibility = enum.VisibilityNone
			f.Preemption = enum.PreemptionNone
		}
	}
	for _, g := range m.Globals {
		if g.Init != nil && !strings.HasPrefix(g.Name(), "llvm.") {
			g.Linkage = enum.LinkageInternal
			g.Visibility = enum.VisibilityNone
			g.Preemption = enum.PreemptionNone
		}
	}
	argv := types.NewPointer(types.I8Ptr)
	for _, name := range kernelNames {
		k := byName[name]
		if k == nil {
			t.Fatalf("kernel %s not in the module", name)
		}
		args := ir.NewParam("args", argv)
		tr := m.NewFunc("gozyme_emu_"+name, types.Void, args)
		b := tr.NewBlock("")
		var vals []value.Value
		for i, p := range k.Params {
			slot := b.NewLoad(types.I8Ptr, b.NewGetElementPtr(types.I8Ptr, args, constant.NewInt(types.I64, int64(i))))
			vals = append(vals, b.NewLoad(p.Typ, b.NewBitCast(slot, types.NewPointer(p.Typ))))
		}
		b.NewCall(k, vals...)
		b.NewRet(nil)
	}
	return m.String()
}

// emulate links the host object of b with its device code retargeted to
// the CPU and the emulator, and returns the executable.
func emulate(t *testing.T, b build) string {
	t.Helper()
	dir := filepath.Dir(b.obj)
	ll := filepath.Join(dir, "emulated.ll")
	if err := os.WriteFile(ll, []byte(retarget(t, b.differentiated(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "emulated")
	cmd := exec.Command("clang++-14", "-O1", "-w", ll, "-x", "c", filepath.Join(repoRoot, "tests", "gpu", "emu", "cudart_emu.c"),
		"-x", "none", b.obj, "-rdynamic", "-lpthread", "-ldl", "-lm", "-o", exe)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("linking the emulated program: %v\n%s", err, out)
	}
	return exe
}

// runChecks runs a test program and fails the test unless every CHECK line
// it prints is ok (and it prints some).
func runChecks(t *testing.T, exe string, args ...string) string {
	t.Helper()
	out, err := exec.Command(exe, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, out)
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "CHECK ") {
			n++
			if !strings.HasSuffix(line, " ok") {
				t.Errorf("%s", line)
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s printed no checks:\n%s", exe, out)
	}
	t.Logf("%s", out)
	return string(out)
}
