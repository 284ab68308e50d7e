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
	src := memoryPrelude + `
typedef struct { const double *init; int n; int steps; } Cfg;
__attribute__((noinline)) double recur(double *w, const Cfg *c) {
	int n = c->n;
	double *h = malloc(n * sizeof *h);
	for (int i = 0; i < n; i++) h[i] = c->init[i];
	for (int t = 0; t < c->steps; t++)
		for (int i = 0; i < n; i++) h[i] = tanh(w[i] * h[i] + w[(i + 1) % n] * h[(i + n - 1) % n]);
	double s = 0;
	for (int i = 0; i < n; i++) s += h[i] * h[i];
	free(h);
	return s;
}
static const double init[10] = {0.1, -0.2, 0.3, 0.5, -0.7, 0.2, 0.9, -0.4, 0.6, 0.05};
static double recur_flat(double *w, int n) { Cfg c = {init, n, 3}; return recur(w, &c); }

/* The state itself active: copied from the active input into the buffer. */
__attribute__((noinline)) double recur_state(double *x, int n) {
	double *h = malloc(n * sizeof *h);
	const double *src = x;
	for (int i = 0; i < n; i++) h[i] = src[i];
	for (int t = 0; t < 3; t++)
		for (int i = 0; i < n; i++) h[i] = sin(h[i] * h[(i + 1) % n]) + 0.5 * h[i];
	double s = 0;
	for (int i = 0; i < n; i++) s += h[i];
	free(h);
	return s;
}

/* Row pointers copied from a struct's table into a malloc'd one (the
   copy's tag is "any pointer"): their shadows are copied with them. */
typedef struct { double **tab; int n; } Tab;
__attribute__((noinline)) double tabbed(const Tab *t) {
	double **r = malloc(t->n * sizeof *r);
	for (int i = 0; i < t->n; i++) r[i] = t->tab[i];
	double s = 0;
	for (int i = 0; i < t->n; i++) s += r[i][0] * cos(r[i][1]);
	free(r);
	return s;
}
static double tabbed_flat(double *x, int n) {
	double *rows[5];
	for (int i = 0; i < 5; i++) rows[i] = x + 2 * i;
	Tab t = {rows, n / 2};
	return tabbed(&t);
}

int main(void) {
	enum { N = 10 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.11 * i - 0.02 * i * i;
	{
		double dw[N] = {0};
		Cfg c = {init, N, 3};
		__enzyme_autodiff((void *)recur, enzyme_dup, x, dw, enzyme_const, &c);
		fdcheck("recur", recur_flat, x, N, dw);
	}
	GRADCHECK(recur_state);
	{
		double dx[N] = {0}, *rows[5], *drows[5];
		for (int i = 0; i < 5; i++) { rows[i] = x + 2 * i; drows[i] = dx + 2 * i; }
		Tab t = {rows, N / 2}, dt = {drows, N / 2};
		__enzyme_autodiff((void *)tabbed, enzyme_dup, &t, &dt);
		fdcheck("tabbed", tabbed_flat, x, N, dx);
	}
	return failures != 0;
}
`
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
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCWithIR(t, irDriver("rec_ir"), recordCopyIR, o)) })
	}
	// Without the tag, the type analysis tells the bytes apart by the
	// stores into the source and the loads from the destination.
	untagged := strings.Replace(recordCopyIR, ", !tbaa.struct !0", "", 1)
	t.Run("untagged", func(t *testing.T) { run(t, buildCWithIR(t, irDriver("rec_ir"), untagged, "0")) })
}
