package ad

import (
	"strings"
	"testing"
)

// TestTBAACopies differentiates copies that loop-idiom turns into memcpy
// between i8* pointers whose element type nothing else tells: the initial
// state of a recurrence copied from a const double* field of a struct
// (enzyme_const) into a malloc'd buffer, and pointer tables copied likewise.
// The memcpy's TBAA tag ("double", "any pointer") is the type evidence.
func TestTBAACopies(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "tbaa_copies.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	// Without TBAA, the casts of the same pointers are the evidence.
	for _, o := range []string{"2", "3"} {
		t.Run("no-strict-aliasing-O"+o, func(t *testing.T) { run(t, buildC(t, src, o, "-fno-strict-aliasing")) })
	}
}

// recordCopyIR copies a record {double a; double *p; double b} between
// untyped heap buffers: only its !tbaa.struct says which bytes are floats
// (adjoints move back) and which a pointer (its shadow is copied).
const recordCopyIR = `
define double @rec_ir(double* %x, i32 %n) {
  %src = call i8* @malloc(i64 24)
  %dst = call i8* @malloc(i64 24)
  %x0 = load double, double* %x, align 8
  %x1p = getelementptr double, double* %x, i64 1
  %x1 = load double, double* %x1p, align 8
  %a = fmul double %x0, %x1
  %sa = bitcast i8* %src to double*
  store double %a, double* %sa, align 8
  %sp8 = getelementptr i8, i8* %src, i64 8
  %spp = bitcast i8* %sp8 to double**
  %x2p = getelementptr double, double* %x, i64 2
  store double* %x2p, double** %spp, align 8
  %sb16 = getelementptr i8, i8* %src, i64 16
  %sb = bitcast i8* %sb16 to double*
  %b = fmul double %x1, %x1
  store double %b, double* %sb, align 8
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %dst, i8* %src, i64 24, i1 false), !tbaa.struct !0
  %da = bitcast i8* %dst to double*
  %ra = load double, double* %da, align 8
  %dp8 = getelementptr i8, i8* %dst, i64 8
  %dpp = bitcast i8* %dp8 to double**
  %rp = load double*, double** %dpp, align 8
  %rpv = load double, double* %rp, align 8
  %db16 = getelementptr i8, i8* %dst, i64 16
  %db = bitcast i8* %db16 to double*
  %rb = load double, double* %db, align 8
  %t = fmul double %ra, %rpv
  %r = fadd double %t, %rb
  call void @free(i8* %src)
  call void @free(i8* %dst)
  ret double %r
}
declare i8* @malloc(i64)
declare void @free(i8*)
declare void @llvm.memcpy.p0i8.p0i8.i64(i8*, i8*, i64, i1)
!0 = !{i64 0, i64 8, !1, i64 8, i64 8, !3, i64 16, i64 8, !1}
!1 = !{!2, !2, i64 0}
!2 = !{!"double", !4, i64 0}
!3 = !{!5, !5, i64 0}
!5 = !{!"any pointer", !4, i64 0}
!4 = !{!"omnipotent char", !6, i64 0}
!6 = !{!"Simple C/C++ TBAA"}
`

func TestTBAAStructCopy(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCWithIR(t, irDriver("rec_ir"), recordCopyIR, o)) })
	}
	// Without the tag, the type analysis tells the bytes apart by the
	// stores into the source and the loads from the destination.
	untagged := strings.Replace(recordCopyIR, ", !tbaa.struct !0", "", 1)
	t.Run("untagged", func(t *testing.T) { run(t, buildCWithIR(t, irDriver("rec_ir"), untagged, "0")) })
}
