package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// TestUntypedCopyZeroShadows: a copy of variable length whose bytes the
// type analysis cannot type but whose first byte it says is an integer
// (characters copied into an entry that also holds an active double) is
// differentiated with run-time checks that its shadows are zero: the
// gradient is exact where they are, and the program stops with a message
// naming the derivative where the copy also covers a double whose adjoint
// would have to move. Where nothing types the first byte, the link stops.
func TestUntypedCopyZeroShadows(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "untyped_copy.c")
	for _, level := range optLevels {
		exe := buildC(t, src, level)
		if out := run(t, exe); !strings.HasPrefix(out, "ok") {
			t.Errorf("-O%s: %s", level, out)
		}
		out, err := exec.Command(exe, "covers-the-double").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "the derivative of lookup_square cannot tell what the bytes of a memory copy") {
			t.Errorf("-O%s: the copy covering an active double ran (%v): %s", level, err, out)
		}
		if _, err := tryBuildC(t, src, level, "-DUNTYPED_START"); err == nil || !strings.Contains(err.Error(), "cannot tell which bytes of") {
			t.Errorf("-O%s: no error for a copy nothing types: %v", level, err)
		}
	}
}

// A copy of k elements (a byte count k<<4) from a local array of structs
// mixing floats and an int into memory whose pointer a pass typed as a
// pointer to pointers (box2d-lite's Arbiter::Update copying its merged
// contacts into the arbiter in a std::map node, floats, -O3): the local
// array's type says which bytes are floats.
const localArrayCopyIR = `
%struct.C = type { float, float, i32, float }

declare void @llvm.memcpy.p0i8.p0i8.i64(i8*, i8*, i64, i1)

define void @copy_ir(%struct.C* %out, float* %in, i64 %k) {
entry:
  %loc = alloca [2 x %struct.C], align 16
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %i2 = shl i64 %i, 1
  %pa = getelementptr inbounds float, float* %in, i64 %i2
  %i21 = or i64 %i2, 1
  %pb = getelementptr inbounds float, float* %in, i64 %i21
  %a = load float, float* %pa, align 4
  %b0 = load float, float* %pb, align 4
  %b = fmul float %b0, %b0
  %w = fmul float %a, %b0
  %id = trunc i64 %i to i32
  %ea = getelementptr inbounds [2 x %struct.C], [2 x %struct.C]* %loc, i64 0, i64 %i, i32 0
  store float %a, float* %ea, align 16
  %eb = getelementptr inbounds [2 x %struct.C], [2 x %struct.C]* %loc, i64 0, i64 %i, i32 1
  store float %b, float* %eb, align 4
  %ei = getelementptr inbounds [2 x %struct.C], [2 x %struct.C]* %loc, i64 0, i64 %i, i32 2
  store i32 %id, i32* %ei, align 8
  %ew = getelementptr inbounds [2 x %struct.C], [2 x %struct.C]* %loc, i64 0, i64 %i, i32 3
  store float %w, float* %ew, align 4
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp ult i64 %i.next, 2
  br i1 %more, label %fill, label %copy
copy:
  %links = bitcast %struct.C* %out to i8**
  %d = bitcast i8** %links to i8*
  %s = bitcast [2 x %struct.C]* %loc to i8*
  %n = shl i64 %k, 4
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %d, i8* %s, i64 %n, i1 false)
  ret void
}
`

// TestLocalArrayCopyTyped: the gradient of that copy's sum, for one and
// two elements copied, against its analytic value at every level.
func TestLocalArrayCopyTyped(t *testing.T) {
	t.Parallel()
	src := checkPrelude + `
typedef struct { float a, b; int id; float w; } C;
void copy_ir(C *out, float *in, long k);
void __enzyme_autodiff(void *, ...);
extern int enzyme_const;
static float loss(float *in, long k) {
	C out[2];
	copy_ir(out, in, k);
	float s = 0;
	for (long i = 0; i < k; i++)
		s += out[i].a * out[i].b + out[i].w * (out[i].id + 1);
	return s;
}
int main(void) {
	for (long k = 1; k <= 2; k++) {
		float in[4] = {0.7f, -1.2f, 0.4f, 1.5f}, din[4] = {0};
		__enzyme_autodiff((void *)loss, in, din, enzyme_const, k);
		for (int i = 0; i < 2; i++) {
			float a = in[2 * i], b = in[2 * i + 1], on = i < k;
			check("d/da", din[2 * i], on * (b * b + (i + 1) * b), 1e-5);
			check("d/db", din[2 * i + 1], on * (2 * a * b + (i + 1) * a), 1e-5);
		}
	}
	return failures != 0;
}
`
	runIRWants(t, src, localArrayCopyIR, optLevels, false, "ok d/db")
}
