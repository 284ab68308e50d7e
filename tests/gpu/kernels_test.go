package gpu

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// count is the number of matches of pattern in text.
func count(text, pattern string) int {
	return len(regexp.MustCompile(pattern).FindAllStringIndex(text, -1))
}

// function returns the text of the definition of the function whose name
// starts with prefix.
func function(t *testing.T, text, prefix string) string {
	t.Helper()
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			j = len(text) - i
		}
		line := text[i : i+j]
		if strings.HasPrefix(line, "define internal") && strings.Contains(line, "@"+prefix) {
			k := strings.Index(text[i:], "\n}\n")
			return text[i : i+k]
		}
		i += j + 1
	}
	t.Fatalf("no function %s in the differentiated module", prefix)
	return ""
}

func TestDaxpy(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "daxpy", []string{"GOZYME_LIBDEVICE=" + lib})
	ir := b.differentiated(t)
	g := function(t, ir, "__gozyme_grad__Z4axpyIdE")
	// dx[i]: x may alias a, which every thread reads: atomic. da[0]: the
	// same address in every thread: summed over the warp, then atomic.
	if n := count(g, `atomicrmw fadd`); n != 1 {
		t.Errorf("want 1 atomicrmw in the double gradient, found %d:\n%s", n, g)
	}
	if !strings.Contains(g, "@__gozyme_gpu_add_warp_f64(double* %1,") {
		t.Errorf("da[0] is not added by the warp sum:\n%s", g)
	}
	if !strings.Contains(g, "call double @__nv_cos(") {
		t.Errorf("sin's derivative does not call libdevice's cos:\n%s", g)
	}
	if f := function(t, ir, "__gozyme_fwd__Z4axpyIdE"); strings.Contains(f, "atomicrmw") {
		t.Errorf("forward mode needs no atomics:\n%s", f)
	}
	ptx := b.ptx(t)
	for _, want := range []string{".entry _Z8gradientIdE", ".entry _Z7tangentIfE", "atom.global.add.f64", "atom.global.add.f32", "shfl.sync.bfly.b32", "activemask.b32"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("the PTX has no %q", want)
		}
	}
	if !strings.Contains(b.stderr, "caches 0 bytes per thread") {
		t.Errorf("no cache report:\n%s", b.stderr)
	}
	runChecks(t, emulate(t, b))
}

func TestSharedMemory(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "shared", []string{"GOZYME_LIBDEVICE=" + lib})
	ir := b.differentiated(t)
	norm := function(t, ir, "__gozyme_grad__Z9blocknorm")
	// Eight barriers in the primal (one after the first store, one per
	// level of the unrolled tree): eight in the forward sweep, eight
	// mirrored.
	if n := count(norm, `call void @llvm.nvvm.barrier0\(\)`); n != 16 {
		t.Errorf("want 16 barriers in the gradient of blocknorm, found %d", n)
	}
	for _, g := range []string{norm, function(t, ir, "__gozyme_grad__Z7stencil")} {
		if !strings.Contains(g, ".gozyme_shadow") {
			t.Errorf("no __shared__ shadow in\n%s", g)
		}
	}
	if n := count(ir, `(?m)^@\S+\.gozyme_shadow = internal addrspace\(3\) global`); n != 2 {
		t.Errorf("want 2 __shared__ shadows, found %d", n)
	}
	ptx := b.ptx(t)
	for _, want := range []string{"bar.sync", "atom.shared.add.f64", "atom.global.add.f64", ".shared .align 8 .b8 _ZZ9blocknorm"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("the PTX has no %q", want)
		}
	}
	runChecks(t, emulate(t, b))
}

func TestOverwritingLoop(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "loop", []string{"GOZYME_LIBDEVICE=" + lib})
	g := function(t, b.differentiated(t), "__gozyme_grad__Z7iterate")
	// The steps' values in one local array sized on entry (the optimizer
	// unrolls the 16 steps by 2: 8 records), no malloc.
	if !regexp.MustCompile(`alloca \[(8|16) x \{`).MatchString(g) || strings.Contains(g, "@malloc") || strings.Contains(g, "@realloc") {
		t.Errorf("want the loop's cache in a local array of records, without malloc:\n%s", g)
	}
	if !regexp.MustCompile(`caches \d+ bytes per thread`).MatchString(b.stderr) || strings.Contains(b.stderr, "caches 0 bytes") {
		t.Errorf("want a nonzero cache report:\n%s", b.stderr)
	}
	if !strings.Contains(b.ptx(t), ".local .align") {
		t.Errorf("the PTX keeps no local-memory cache")
	}
	runChecks(t, emulate(t, b))
}

func TestRunTimeTripCount(t *testing.T) {
	lib := libdevice(t)
	b, err := tryBuildCUDA(t, "loop_dynamic", []string{"GOZYME_LIBDEVICE=" + lib})
	if err == nil || !regexp.MustCompile(`loop_dynamic\.cu:\d+:\d+: cannot differentiate '_Z7iteratePdPKdii' \(called from kernel '_Z8gradientPdS_PKdS_ii'\): .*not a compile-time constant.*GOZYME_GPU_LOOP_RECORDS`).MatchString(b.stderr) {
		t.Fatalf("want an error naming the loop's line and the kernel, got %v:\n%s", err, b.stderr)
	}
	b = buildCUDA(t, "loop_dynamic", []string{"GOZYME_LIBDEVICE=" + lib, "GOZYME_GPU_LOOP_RECORDS=32"})
	runChecks(t, emulate(t, b))
}

func TestXSBenchLookup(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "xsbench", []string{"GOZYME_LIBDEVICE=" + lib})
	g := function(t, b.differentiated(t), "__gozyme_grad__Z6lookup")
	// Concentrations, microscopic data and energies are tables other
	// threads read too: every accumulation is atomic.
	if count(g, `atomicrmw fadd`) == 0 || strings.Contains(g, "@malloc") {
		t.Errorf("want atomic accumulation and no malloc:\n%s", g)
	}
	runChecks(t, emulate(t, b))
}

func TestLULESHEnergy(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "lulesh", []string{"GOZYME_LIBDEVICE=" + lib})
	ir := b.differentiated(t)
	g := function(t, ir, "__gozyme_grad__Z6energy")
	// 24 coordinates gathered from nodes neighbouring elements share: 24
	// atomic adds; the primal's atomicAdd into the total stays.
	if n := count(g, `atomicrmw fadd double\* %\d+, double`); n < 24 {
		t.Errorf("want at least 24 atomic adds of coordinate adjoints, found %d", n)
	}
	f := function(t, ir, "__gozyme_fwd__Z6energy")
	if n := count(f, `atomicrmw fadd`); n != 2 {
		t.Errorf("want the primal's atomicAdd and its tangent's in forward mode, found %d atomics", n)
	}
	runChecks(t, emulate(t, b))
}

func TestUnsupportedConstructs(t *testing.T) {
	lib := libdevice(t)
	for _, c := range []struct {
		name, define string
		env          []string
		want         string
	}{
		{"warp shuffle", "-DCASE=1", nil, `unsupported\.cu:16:\d+: cannot differentiate '_Z1fPd' \(called from kernel '_Z4gradPdS_'\): a warp shuffle of floating-point data .* has no derivative rule`},
		{"dynamic parallelism", "-DCASE=2", nil, `unsupported\.cu:18:\d+: cannot differentiate '_Z1fPd' \(called from kernel '_Z4gradPdS_'\): dynamic parallelism .*cudaGetParameterBuffer.* is not supported`},
		{"cooperative groups", "-DCASE=3", nil, `unsupported\.cu:22:\d+: cannot differentiate '_Z1fPd' \(called from kernel '_Z4gradPdS_'\): cooperative groups .*cudaCG.* are not supported`},
		{"dynamic shared memory", "-DCASE=5", nil, `unsupported\.cu:\d+:\d+: cannot differentiate '_Z1fPd' \(called from kernel '_Z4gradPdS_'\): .*dynamic shared memory \(extern __shared__, sized at launch\)`},
		{"no libdevice", "-DCASE=4", []string{"GOZYME_LIBDEVICE="}, `unsupported\.cu: device code calls __nv_cos, __nv_sin, which libdevice defines: give its path with GOZYME_LIBDEVICE`},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := append([]string{"GOZYME_LIBDEVICE=" + lib}, c.env...)
			b, err := tryBuildCUDA(t, "unsupported", env, c.define)
			if err == nil || !regexp.MustCompile(c.want).MatchString(b.stderr) {
				t.Fatalf("want an error matching %s, got %v:\n%s", c.want, err, b.stderr)
			}
			if _, statErr := os.Stat(b.obj); statErr == nil {
				t.Errorf("the failed compile left %s behind", b.obj)
			}
		})
	}
}

func TestThreadPrivateAdjoints(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "private", []string{"GOZYME_LIBDEVICE=" + lib})
	ir := b.differentiated(t)
	// dx[gid] is the thread's own in a one-dimensional launch: a variant
	// adding plainly for those, one adding atomically for the others, and
	// the launch test choosing between them.
	oneD := function(t, ir, "__gozyme_grad__Z4dampPdi_dc_u0_1d(")
	general := function(t, ir, "__gozyme_grad__Z4dampPdi_dc_u0(")
	if strings.Contains(oneD, "atomicrmw") || count(general, "atomicrmw fadd") != 1 {
		t.Errorf("want plain adds in the one-dimensional variant and an atomic one in the other:\n%s\n%s", oneD, general)
	}
	launch := function(t, ir, "__gozyme_grad__Z4dampPdi_dc_u0.launch(")
	for _, sreg := range []string{"ntid.y", "ntid.z", "nctaid.y", "nctaid.z", "nctaid.x"} {
		if !strings.Contains(launch, "@llvm.nvvm.read.ptx.sreg."+sreg+"()") {
			t.Errorf("the one-dimensional launch test does not read %s:\n%s", sreg, launch)
		}
	}
	runChecks(t, emulate(t, b))
}

func TestDynamicTreeReduction(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "reduce_dynamic", []string{"GOZYME_LIBDEVICE=" + lib, "GOZYME_GPU_LOOP_RECORDS=16"})
	if !strings.Contains(b.stderr, "caches") {
		t.Errorf("no cache report:\n%s", b.stderr)
	}
	runChecks(t, emulate(t, b))
}
