package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
)

// TestPointerVectorShadows: pointers the SLP vectorizer moves as
// <2 x double*> (a struct's two pointer fields swapped, copied, chosen by a
// select, stepped by a vector getelementptr) carry their shadows lane by
// lane: reverse, split, forward and batch forward mode against analytic
// values and central differences (ptrvectors.go).
func TestPointerVectorShadows(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "pointer_vectors.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { checkWants(t, run(t, buildC(t, src, o)), "-O"+o, []string{"all ok"}) })
	}
}

// TestPointerVectorShadowsCXX: std::vector<double> swapped (std::swap) and
// moved inside the differentiated function, whose begin/end pointers move
// as <2 x double*> at -O2.
func TestPointerVectorShadowsCXX(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + testdataC(t, "pointer_vectors_cxx.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { checkWants(t, run(t, buildCXX(t, src, o)), "-O"+o, []string{"all ok"}) })
	}
}

// pointerVectorsIR is double pv_ir(double *x, int n) over the forms of
// pointer vectors C does not reach at -O0: a loop-carried phi of them,
// extractelement and insertelement with variable indices, a vector
// getelementptr with a vector of indices, shuffles (one with an undefined
// lane), ptrtoint and icmp of them, a select with a scalar condition,
// casts between pointer vector types and a constant vector. It reads
// x[0..5] (n = 6).
const pointerVectorsIR = `
define double @pv_ir(double* %x, i32 %n) {
entry:
  %x1 = getelementptr double, double* %x, i64 1
  %v0 = insertelement <2 x double*> <double* null, double* undef>, double* %x, i32 0
  %v1 = insertelement <2 x double*> %v0, double* %x1, i32 1
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %v = phi <2 x double*> [ %v1, %entry ], [ %vn, %loop ]
  %lane = and i64 %i, 1
  %p = extractelement <2 x double*> %v, i64 %lane
  %a = load double, double* %p, align 8
  %q = extractelement <2 x double*> %v, i32 1
  %b = load double, double* %q, align 8
  %m = fmul double %a, %b
  %s = call double @llvm.sin.f64(double %m)
  %sh = shufflevector <2 x double*> %v, <2 x double*> undef, <2 x i32> <i32 1, i32 0>
  %pi = ptrtoint <2 x double*> %v to <2 x i64>
  %d0 = extractelement <2 x i64> %pi, i32 0
  %d1 = extractelement <2 x i64> %pi, i32 1
  %same = icmp eq i64 %d0, %d1
  %w = select i1 %same, <2 x double*> %v, <2 x double*> %sh
  %wi = bitcast <2 x double*> %w to <2 x i64*>
  %wd = bitcast <2 x i64*> %wi to <2 x double*>
  %r = extractelement <2 x double*> %wd, i32 0
  %c = load double, double* %r, align 8
  %eqv = icmp eq <2 x double*> %v, %sh
  %e0 = extractelement <2 x i1> %eqv, i32 0
  %fac = select i1 %e0, double 2.0, double 1.0
  %cc = fmul double %c, %fac
  %t = fmul double %s, %cc
  %acc1 = fadd double %acc, %t
  %vs0 = getelementptr double, <2 x double*> %v, <2 x i64> <i64 2, i64 1>
  %l0 = extractelement <2 x double*> %vs0, i32 0
  %vn = insertelement <2 x double*> %vs0, double* %l0, i64 %lane
  %und = shufflevector <2 x double*> %vn, <2 x double*> undef, <2 x i32> <i32 0, i32 undef>
  %u0 = extractelement <2 x double*> %und, i32 0
  %ud = load double, double* %u0, align 8
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, 2
  br i1 %more, label %loop, label %done
done:
  %last = fmul double %acc1, %ud
  ret double %last
}

declare double @llvm.sin.f64(double)
`

// TestPointerVectorFormsIR: the lane-by-lane rewrite of every pointer
// vector form it takes apart, against central differences (reverse) and a
// forward directional derivative.
func TestPointerVectorFormsIR(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCWithIR(t, irDriver("pv_ir"), pointerVectorsIR, o)) })
	}
}

// TestPointerVectorCallError: a vector of pointers passed to a call cannot
// be taken apart into lanes; the link stops naming the function, never a
// derivative that leaves the shadows behind.
func TestPointerVectorCallError(t *testing.T) {
	t.Parallel()
	ll := `
define double @pv_call(double* %x, i32 %n) {
  %x1 = getelementptr double, double* %x, i64 1
  %v0 = insertelement <2 x double*> undef, double* %x, i32 0
  %v1 = insertelement <2 x double*> %v0, double* %x1, i32 1
  %r = call double @pair_product(<2 x double*> %v1)
  ret double %r
}

define internal double @pair_product(<2 x double*> %v) noinline {
  %p = extractelement <2 x double*> %v, i32 0
  %q = extractelement <2 x double*> %v, i32 1
  %a = load double, double* %p, align 8
  %b = load double, double* %q, align 8
  %m = fmul double %a, %b
  ret double %m
}
`
	for _, o := range []string{"0", "2"} {
		_, err := tryBuildCWithIR(t, irDriver("pv_call"), ll, o)
		if err == nil || !strings.Contains(err.Error(), "vector of pointers") || !strings.Contains(err.Error(), "pv_call") && !strings.Contains(err.Error(), "pair_product") {
			t.Errorf("-O%s: want an error naming the vector of pointers passed to pair_product, got %v", o, err)
		}
	}
}

// TestPointerVectorDebugValue: the rewrite leaves no vector of pointers
// behind, llvm.dbg.value of one (its lanes have no variable) included, and
// keeps the accesses' metadata and debug locations on the lanes.
func TestPointerVectorDebugValue(t *testing.T) {
	t.Parallel()
	m, err := irutil.ParseText("pv.ll", []byte(`
%pair = type { double*, double* }

define void @swap(%pair* %p) !dbg !5 {
  %c = bitcast %pair* %p to <2 x double*>*
  %v = load <2 x double*>, <2 x double*>* %c, align 16, !tbaa !9, !dbg !8
  call void @llvm.dbg.value(metadata <2 x double*> %v, metadata !12, metadata !DIExpression()), !dbg !8
  %s = shufflevector <2 x double*> %v, <2 x double*> poison, <2 x i32> <i32 1, i32 0>, !dbg !8
  store <2 x double*> %s, <2 x double*>* %c, align 16, !tbaa !9, !dbg !8
  ret void
}

declare void @llvm.dbg.value(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "pv.c", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "swap", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 4, column: 7, scope: !5)
!9 = !{!10, !10, i64 0}
!10 = !{!"any pointer", !11, i64 0}
!11 = !{!"omnipotent char"}
!12 = !DILocalVariable(name: "v", scope: !5, file: !1, line: 4, type: !13)
!13 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
`))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := scalarizePointerVectors(f); err != nil {
		t.Fatal(err)
	}
	out := f.LLString()
	if strings.Contains(out, "x double*>") && !strings.Contains(out, "<2 x double*>*") || strings.Contains(out, "load <2") || strings.Contains(out, "store <2") || strings.Contains(out, "dbg.value") {
		t.Fatalf("vectors of pointers left:\n%s", out)
	}
	for _, want := range []string{"align 16, !tbaa !9, !dbg !8", "align 8, !tbaa !9, !dbg !8"} {
		if strings.Count(out, want) != 2 {
			t.Errorf("want two lane accesses with %q:\n%s", want, out)
		}
	}
}
