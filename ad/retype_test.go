package ad

import (
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"
)

// bitsPrelude declares the entry points the tests of floats moved as
// integers use, after checkPrelude.
const bitsPrelude = checkPrelude + `
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
`

// A double's bits moved as unsigned long long: an 8-byte memcpy (load
// i64/store i64), a noinline helper taking and returning the bits (its
// copy gets double parameters), a store through long*, sign-bit masks
// (fabs, fneg), and subdoublestore's store of the bits into malloc'd
// memory read back as double by the caller. Reverse, forward and split
// modes.
func TestFloatBitsThroughIntegers(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + testdataC(t, "float_bits_through_integers.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// Structs copied by assignment (two doubles: i64 pairs or <2 x i64>, a
// double next to a long), returned by value, and a char buffer of doubles
// copied by memcpy of a variable length in a generic helper.
func TestStructCopiesAsIntegers(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + testdataC(t, "struct_copies_as_integers.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// A variable-length copy of a buffer whose first 32 bytes are known to
// hold doubles, asked to copy 40: the derivative stops the program rather
// than treat the unknown bytes as floats (or drop them).
func TestCopyBeyondKnownFloatsStops(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + testdataC(t, "copy_beyond_known_floats_stops.c")
	exe := buildC(t, src, "2")
	run(t, exe)
	out, err := exec.Command(exe, "beyond").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "goes beyond the bytes known to hold floating point") {
		t.Fatalf("copy beyond the known doubles: want a stop, got %v\n%s", err, out)
	}
}

// Floats the rewrite cannot express: the bytes of doubles copied one by
// one, a struct {float; int} passed by value (one i64 holding both). The
// link stops with an error naming the instruction, never a zero.
func TestOpaqueFloatBitsAreErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"byte loop": `
__attribute__((noinline)) void copybytes(char *dst, const char *src, int n) { for (int i = 0; i < n; i++) dst[i] = src[i]; }
double f(double x) {
	double in[2] = {x, x * x}, out[2];
	char buf[16];
	memcpy(buf, in, sizeof in);
	copybytes((char *)out, buf, (int)sizeof out);
	return out[0] * out[1];
}`,
		"float and int by value": `
typedef struct { float a; int b; } FI;
__attribute__((noinline)) double use(FI s) { return (double)s.a * s.a * s.b; }
double f(double x) { FI s = {(float)x, 3}; return use(s); }`,
	}
	// Bits of unknown type made a float: at -O3 argument promotion passes
	// the second helper the i64 itself, and with two contexts the helpers'
	// facts do not go back up into the callers' integers.
	const twoContexts = `
static __attribute__((noinline)) void bitsout(unsigned long long *u, const double *d) { memcpy(u, d, sizeof *u); }
static __attribute__((noinline)) void bitsin(double *d, const unsigned long long *u) { memcpy(d, u, sizeof *d); }
double f(double x) {
	double v = exp(x), w, v2 = x * x, w2;
	unsigned long long u, u2;
	bitsout(&u, &v);
	bitsin(&w, &u);
	bitsout(&u2, &v2);
	bitsin(&w2, &u2);
	return sinh(x) * w + w2;
}`
	for name, body := range cases {
		src := bitsPrelude + body + `
int main(void) { printf("%g\n", __enzyme_autodiff((void *)f, 0.5)); return 0; }
`
		for _, o := range []string{"0", "2"} {
			t.Run(name+"/O"+o, func(t *testing.T) {
				_, err := tryBuildC(t, src, o)
				if err == nil || !strings.Contains(err.Error(), "carries a derivative as an integer") {
					t.Fatalf("want an error about float bits moved as an integer, got %v", err)
				}
			})
		}
	}
	t.Run("unknown bits made a float/O3", func(t *testing.T) {
		src := bitsPrelude + twoContexts + `
int main(void) { printf("%g\n", __enzyme_fwddiff((void *)f, 0.5, 1.0)); return 0; }
`
		exe, err := tryBuildC(t, src, "3")
		if err == nil {
			// Where the analysis tells the bits, the derivative must be exact.
			out, rerr := exec.Command(exe).Output()
			want := (math.Cosh(0.5)+math.Sinh(0.5))*math.Exp(0.5) + 1
			var got float64
			if _, serr := fmt.Sscan(string(out), &got); rerr != nil || serr != nil || math.Abs(got-want) > 1e-12*math.Abs(want) {
				t.Fatalf("derivative %s (err %v), want %.17g", out, rerr, want)
			}
			return
		}
		if !strings.Contains(err.Error(), "bits the type analysis cannot tell") {
			t.Fatalf("want an error about bits of unknown type made a float, got %v", err)
		}
	})
}

// A struct passed by value (byval) that the callee changes: each call
// works on its own copy in the derivative as in the program.
func TestByvalCopiesStayCopies(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + testdataC(t, "byval_copies_stay_copies.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// A callback passed down generic code (an ODE integrator's right-hand
// side) and called through a parameter: the copies AD differentiates call
// it directly; two callbacks through one parameter, by dispatch.
func TestCallbackParameters(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + testdataC(t, "callback_parameters.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	two := bitsPrelude + testdataC(t, "callback_parameters_dispatch.c")
	// Two callbacks through one parameter: the call dispatches over them
	// (dispatch.go); d/dx0 of x0 (1 - 0.15)(1 + 0.05).
	for _, o := range []string{"0", "2"} {
		t.Run("two/O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildC(t, two, o)), "-O"+o, []string{"0.8925"})
		})
	}
}

// C++: std::array<double, 1> assigned in a noinline function (an i64
// copy at -O2, as boost odeint copies its state), std::copy and
// std::vector copies.
func TestCXXCopiesOfDoubles(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "cxx_copies_of_doubles.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}

// Pointers moved as integers (an unsigned long holding a double*, copied
// by memcpy: load i64/store i64 at -O2): their shadows move with them.
func TestPointerBitsThroughIntegers(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + testdataC(t, "pointer_bits_through_integers.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestTypeReport: Options.TypeReport (GOZYME_PRINT_TYPES) receives the
// type analysis of the functions AD reaches and the copies the rewrite
// changed; without it Differentiate prints nothing.
func TestTypeReport(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + `
__attribute__((noinline)) unsigned long long bits(double x) { unsigned long long u; memcpy(&u, &x, 8); return u; }
double f(double x) { unsigned long long u = bits(x * x); double y; memcpy(&y, &u, 8); return y; }
double df(double x) { return __enzyme_autodiff((void *)f, x); }
`
	var report strings.Builder
	if _, err := Differentiate(preADModuleC(t, src, "2"), Options{TypeReport: &report}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"types of f", "types of bits", "define"} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("no %q in the type report:\n%s", want, report.String())
		}
	}
}

// TestPacketIntLoads: doubles loaded as <4 x i32> packets and used as
// doubles, carried by a phi and a select and stored back as integers,
// differentiate at every level (testdata/packet_int_loads.c): the packet's
// carrier is a vector of fewer, wider floats (PackedFloats).
func TestPacketIntLoads(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "packet_int_loads.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestPacketPairShuffle: a shuffle of the 32-bit halves of a double
// packet that moves whole doubles (_mm_shuffle_epi32 0x44, 0xEE, 0x4E:
// Eigen's pbroadcast4 at -O0) is the shuffle of the doubles
// (floatLaneMask), at every level (testdata/packet_pair_shuffle.c).
func TestPacketPairShuffle(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "packet_pair_shuffle.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// Pointers aligned by masking their bits ((p + 15) & -16, Eigen's aligned
// stack variables) inside allocations known to be that aligned: the
// shadow is the shadow of p moved back by as many bytes (retype_align.go),
// at every level (-O0 keeps the mask; LLVM folds it for allocas above).
func TestAlignedByMask(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "aligned_by_mask.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// A pointer the caller passes, aligned by a mask: its shadow (the caller's)
// need not sit at the same distance from a 32-byte boundary, so the
// shadow of the aligned pointer is unknown and the link stops
// (checkPointerBitsLost). At -O2 the loads through it were read as
// memory without derivatives before: a gradient of 0.
func TestAlignedByMaskUnknownBaseStops(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + `
#include <stdint.h>
static double f(double *x, int n) {
	double *a = (double *)(((uintptr_t)x + 31) & -(uintptr_t)32);
	double s = 0;
	for (int i = 0; i < 2; i++) s += a[i] * a[i];
	return s;
}
int main(void) {
	_Alignas(32) double x[8], dx[8] = {0};
	for (int i = 0; i < 8; i++) x[i] = i;
	__enzyme_autodiff((void *)f, enzyme_dup, x + 1, dx + 1, enzyme_const, 4);
	printf("%g\n", dx[4]);
	return 0;
}
`
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) {
			_, err := tryBuildC(t, src, o)
			if err == nil || !strings.Contains(err.Error(), "a pointer made from the bits of") {
				t.Fatalf("want a stop at the masked pointer, got %v", err)
			}
		})
	}
}

// TestUnknownIntSwap: 4 bytes the type analysis cannot tell, swapped
// between memories with shadows (testdata/unknown_int_swap.c), link; the
// reverse sweep checks their adjoint is zero: integers differentiate
// against central differences at every level, floats carrying
// derivatives stop the program.
func TestUnknownIntSwap(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "unknown_int_swap.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, src, o)
			run(t, exe)
			out, err := exec.Command(exe, "floats").CombinedOutput()
			if err == nil || !strings.Contains(string(out), "cannot tell whether the 4 bytes a store moves hold a float or an integer") {
				t.Fatalf("floats swapped as ints: want a stop, got %v\n%s", err, out)
			}
		})
	}
}

// A struct of two floats copied by SROA as a <2 x float> load whose lanes
// are taken as integers (bitcast to <2 x i32>, extractelement) and merged
// through i32 phis with other floats' bits, then bitcast back to float
// (box2d-lite's Collide choosing a separating axis's normal among the
// rotations' columns, at -O2 with floats).
const floatLanesAsIntsIR = `
define float @lanes_ir(float* %m, float %a, float %b, i32 %which) {
entry:
  %ai = bitcast float %a to i32
  %bi = bitcast float %b to i32
  %c = icmp ne i32 %which, 0
  br i1 %c, label %col, label %join
col:
  %vp = bitcast float* %m to <2 x float>*
  %v = load <2 x float>, <2 x float>* %vp, align 8
  %vi = bitcast <2 x float> %v to <2 x i32>
  %x = extractelement <2 x i32> %vi, i64 0
  %vi2 = bitcast <2 x float> %v to <2 x i32>
  %y = extractelement <2 x i32> %vi2, i64 1
  br label %join
join:
  %px = phi i32 [ %ai, %entry ], [ %x, %col ]
  %py = phi i32 [ %bi, %entry ], [ %y, %col ]
  %fx = bitcast i32 %px to float
  %fy = bitcast i32 %py to float
  %r = fmul float %fx, %fy
  %s = fmul float %r, %fx
  ret float %s
}
`

// TestFloatLanesAsIntegers: the derivative of lanes_ir, both ways through
// the branch (x²y of the column's floats, or of a and b), at every level.
func TestFloatLanesAsIntegers(t *testing.T) {
	t.Parallel()
	src := bitsPrelude + `
float lanes_ir(float *m, float a, float b, int which);
typedef struct { float da, db; } grads;
grads __enzyme_autodiff_lanes(void *, ...);
int main(void) {
	for (int which = 0; which < 2; which++) {
		float m[2] = {0.7f, -1.3f}, dm[2] = {0, 0}, a = 1.1f, b = 0.4f;
		grads g = __enzyme_autodiff_lanes((void *)lanes_ir, enzyme_dup, m, dm, a, b, enzyme_const, which);
		float x = which ? m[0] : a, y = which ? m[1] : b;
		check("d/dx", which ? dm[0] : g.da, 2 * x * y, 1e-6);
		check("d/dy", which ? dm[1] : g.db, x * x, 1e-6);
		check("unused", which ? g.da + g.db : dm[0] + dm[1], 0, 1e-6);
	}
	return failures != 0;
}
`
	runIRWants(t, src, floatLanesAsIntsIR, optLevels, false, "ok d/dx")
}
