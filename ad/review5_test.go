package ad

import "testing"

// review5Kernels stress the conditions of the reverse sweep's bookkeeping
// optimizations: counters restarted on entry (restartCounters), induction
// phis rebuilt (lagging phis, remainder starts, exit values), path
// decisions after vectorized loops, growth on entry, loop hints.
const review5Kernels = `
/* restart: inner sum loop (no records) + sibling whose counter is read after */
__attribute__((noinline)) double rs_after(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		double a = 0; int j;
		for (j = 0; j < n - i; j++) a += x[j];
		double b = 0; int k;
		for (k = 0; k < i; k++) b += x[k] * 0.5;
		s += sin(a * x[i]) + b * x[(j + k) % n];
		x[i] = x[i] * 0.7 + 0.1 * a;
	}
	return s;
}
/* inner loop without records, inside an outer with records, trip 0 sometimes */
__attribute__((noinline)) double rs_zero(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		int m = (i % 3) * (n / 2);
		double a = 1;
		for (int j = 0; j < m; j++) a += x[j] * x[j];
		s += log(a) * x[i];
		x[i] = cos(x[i]) * a;
	}
	return s;
}
/* while loop with break, counter read after */
__attribute__((noinline)) double rs_while(double *x, int n) {
	double s = 0;
	for (int r = 0; r < 3; r++) {
		int j = 0; double a = 0;
		while (j < n) { if (j > r + 1) break; a += x[j] * x[r % n]; j++; }
		s += a * x[j % n];
		x[r % n] = sin(x[r % n]) + a;
	}
	return s;
}
/* lagging phi with non-matching start */
__attribute__((noinline)) double lag_bad(double *x, int n) {
	double s = 0; int k = n - 1;
	for (int i = 0; i < n; i++) { s += x[i] * x[k] + sin(x[k]); k = i; }
	return s;
}
__attribute__((noinline)) double lag_good(double *x, int n) {
	double s = 0;
	for (int t = 0; t < 2; t++) {
		int k = 0;
		for (int i = 1; i < n; i++) { s += x[i] * x[k]; x[k] = sin(x[k]) * x[i]; k = i; }
	}
	return s;
}
/* lag twice: k = i, l = k */
__attribute__((noinline)) double lag_two(double *x, int n) {
	double s = 0; int k = 0, l = 0;
	for (int i = 0; i < n; i++) { s += x[i] * x[k] * x[l]; x[l] = x[l] * 0.9 + 0.1 * x[i]; l = k; k = i; }
	return s;
}
/* vectorized loop, trip count changes per step, zero on some */
__attribute__((noinline)) double v_vary(double *x, int n) {
	double e = 0;
	for (int s = 0; s < 4; s++) {
		int m = (n - 2 * s) / 2;
		for (int i = 0; i < m; i++) x[n / 2 + i] = x[n / 2 + i] * 0.9 + x[i] * x[i];
		e += x[s % n] * x[n - 1];
	}
	return e;
}
/* a loop with a break, its counter read after it (fully unrolled outer
   loop at -O2): the join after it is decided by the n > 0 guard and then by
   the break's condition, defined in the loop and not on the guard's other
   side (decide.go must not read it there: invalid IR, "does not dominate") */
__attribute__((noinline)) double break_after(double *x, int n) {
	double e = 0;
	for (int s = 0; s < 3; s++) {
		int i;
		for (i = 0; i < n; i++) { if (x[i] > 0.75) break; x[i] = x[i] * x[i]; }
		e += x[i % n];
	}
	return e;
}
/* vectorized-looking loop with a break */
__attribute__((noinline)) double v_break(double *x, int n) {
	double e = 0;
	for (int s = 0; s < 3; s++) {
		int i;
		for (i = 0; i < n; i++) { if (x[i] > 0.75 + 0.01 * s) break; x[i] = x[i] * x[i] + 0.3; }
		e += x[(i + s) % n] * x[0];
	}
	return e;
}
/* remainder with live-out values (sum and last) */
__attribute__((noinline)) double v_live(double *x, int n) {
	double e = 0;
	for (int s = 0; s < 3; s++) {
		int m = n - s;
		double t = 0, last = 0;
		for (int i = 0; i < m; i++) { last = x[i] * 1.5; x[i] = last * 0.5 + 0.1; t += last; }
		e += t * last + x[s % n];
	}
	return e;
}
/* guards that differ between steps */
__attribute__((noinline)) double v_guard(double *x, int n) {
	double e = 0; int h = n / 2;
	for (int s = 0; s < 4; s++) {
		if (s & 1) for (int i = 0; i < h; i++) x[i] = x[i] * 0.8 + x[h + i] * x[h + i];
		else for (int i = 0; i < n - h; i++) x[h + i] = sin(x[h + i]) + 0.2 * x[i % (h ? h : 1)];
		e += x[s % n] * x[n - 1];
	}
	return e;
}
/* loop entered from two places with different starts */
__attribute__((noinline)) double multi_entry(double *x, int n) {
	double s = 0;
	for (int r = 0; r < 3; r++) {
		int j;
		double a;
		if (x[r % n] > 0.4) { j = 1; a = x[0] * x[0]; } else { j = 0; a = 0; }
		while (j < n) { a += x[j] * x[j]; j++; }
		s += sin(a) * x[r % n] + x[j - 1];
		x[r % n] *= 0.9;
	}
	return s;
}
/* triangular nest with exit value of induction used later */
__attribute__((noinline)) double tri_exit(double *x, int n) {
	double s = 0; int i, j = 0;
	for (i = 0; i < n; i++) {
		for (j = i; j < n; j++) s += x[i] * x[j];
		x[i] = s * 0.01 + x[i];
	}
	return s + x[(i + j) % n];
}
/* inner loop without records in outer with records, start not 0 and step 2 */
__attribute__((noinline)) double step2(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		double a = 0;
		for (int j = i & 1; j < n; j += 2) a += x[j] * x[i];
		s += a * a;
		x[i] = sqrt(x[i] * x[i] + a * 0.01);
	}
	return s;
}
/* memcpy idiom loop after AD: loop copying loaded values */
__attribute__((noinline)) double copyloop(double *x, int n) {
	double y[64], s = 0;
	for (int r = 0; r < 2; r++) {
		for (int i = 0; i < n; i++) y[i] = x[i];
		for (int i = 0; i < n; i++) x[i] = y[(i + 1) % n] * y[i] + 0.1;
		s += x[0] * x[n - 1];
	}
	return s;
}
`

const review5Runs = loopRunPrelude + review5Kernels + `
CALLEE(rs_after)
COPY64(rs_after)
COPY64(rs_after_callee)
CALLEE(rs_zero)
COPY64(rs_zero)
COPY64(rs_zero_callee)
CALLEE(rs_while)
COPY64(rs_while)
COPY64(rs_while_callee)
CALLEE(lag_bad)
COPY64(lag_bad)
COPY64(lag_bad_callee)
CALLEE(lag_good)
COPY64(lag_good)
COPY64(lag_good_callee)
CALLEE(lag_two)
COPY64(lag_two)
COPY64(lag_two_callee)
CALLEE(v_vary)
COPY64(v_vary)
COPY64(v_vary_callee)
CALLEE(v_break)
CALLEE(break_after)
COPY64(break_after)
COPY64(break_after_callee)
COPY64(v_break)
COPY64(v_break_callee)
CALLEE(v_live)
COPY64(v_live)
COPY64(v_live_callee)
CALLEE(v_guard)
COPY64(v_guard)
COPY64(v_guard_callee)
CALLEE(multi_entry)
COPY64(multi_entry)
COPY64(multi_entry_callee)
CALLEE(tri_exit)
COPY64(tri_exit)
COPY64(tri_exit_callee)
CALLEE(step2)
COPY64(step2)
COPY64(step2_callee)
CALLEE(copyloop)
COPY64(copyloop)
COPY64(copyloop_callee)
#define ALL(n) FDRUN(rs_after, n); FDRUN(rs_after_callee, n); FDRUN(rs_zero, n); FDRUN(rs_zero_callee, n); FDRUN(rs_while, n); FDRUN(rs_while_callee, n); FDRUN(lag_bad, n); FDRUN(lag_bad_callee, n); FDRUN(lag_good, n); FDRUN(lag_good_callee, n); FDRUN(lag_two, n); FDRUN(lag_two_callee, n); FDRUN(v_vary, n); FDRUN(v_vary_callee, n); FDRUN(v_break, n); FDRUN(v_break_callee, n); FDRUN(break_after, n); FDRUN(break_after_callee, n); FDRUN(v_live, n); FDRUN(v_live_callee, n); FDRUN(v_guard, n); FDRUN(v_guard_callee, n); FDRUN(multi_entry, n); FDRUN(multi_entry_callee, n); FDRUN(tri_exit, n); FDRUN(tri_exit_callee, n); FDRUN(step2, n); FDRUN(step2_callee, n); FDRUN(copyloop, n); FDRUN(copyloop_callee, n);
int main(void) {
	ALL(1); ALL(2); ALL(3); ALL(4); ALL(5); ALL(8); ALL(9); ALL(17);
	return failures != 0;
}
`

// TestReview5Run: every kernel's gradient, as root and as a split callee,
// against central differences at -O0..-O3.
func TestReview5Run(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, review5Runs, o)) })
	}
}

// pdxIR: an outer loop whose step runs an inner loop (no affine exit
// value: i += st, st = 3 - st) under a guard invariant in the outer loop,
// then branches on the inner loop's exit value to P or straight to R.
const pdxIR = `
define double @pdx_ir(double* %x, i64 %n) {
entry:
  br label %outer
outer:
  %s = phi i64 [ 0, %entry ], [ %s.next, %R ]
  %e = phi double [ 0.0, %entry ], [ %e.next, %R ]
  %k = sub i64 %n, %s
  %c = icmp sgt i64 %n, 2
  br i1 %c, label %loop, label %R
loop:
  %i = phi i64 [ 0, %outer ], [ %i.next, %loop ]
  %st = phi i64 [ 1, %outer ], [ %st.next, %loop ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %p
  %v2 = fmul double %v, %v
  store double %v2, double* %p
  %i.next = add i64 %i, %st
  %st.next = sub i64 3, %st
  %km1 = sub i64 %n, 1
  %lc = icmp slt i64 %i.next, %km1
  br i1 %lc, label %loop, label %after
after:
  %eq = icmp eq i64 %i.next, %km1
  br i1 %eq, label %R, label %P
P:
  %x0 = load double, double* %x
  %xsp0 = getelementptr inbounds double, double* %x, i64 %s
  %xs0 = load double, double* %xsp0
  %sx0 = call double @llvm.sin.f64(double %x0)
  %m0 = fmul double %sx0, %xs0
  store double %m0, double* %x
  br label %R
R:
  %xsp = getelementptr inbounds double, double* %x, i64 %s
  %xs = load double, double* %xsp
  %sxs = call double @llvm.sin.f64(double %xs)
  %lastp = getelementptr inbounds double, double* %x, i64 %k
  %lastp1 = getelementptr inbounds double, double* %lastp, i64 -1
  %last = load double, double* %lastp1
  %t = fmul double %sxs, %last
  %e.next = fadd double %e, %t
  %xs2 = fmul double %xs, 0.5
  store double %xs2, double* %xsp
  %s.next = add i64 %s, 1
  %oc = icmp slt i64 %s.next, %n
  br i1 %oc, label %outer, label %exit
exit:
  ret double %e.next
}
declare double @llvm.sin.f64(double)
`

// TestReview5PathExitRun: the join R after an inner loop is decided by
// paths (pathdecide.go) from the invariant guard n > 2 and the branch on
// the loop's exit value (i.next == n-1, i stepping 1, 2, 1, ...). Passing
// the loop whole, the walk had kept its header phis fixed to their first
// iteration's values and evaluated the branch with i = 0 (the gradient
// at n = 4, 5 missed the way through P).
func TestReview5PathExitRun(t *testing.T) {
	src := loopRunPrelude + `
double pdx_ir(double *x, long n);
static double pdx(double *x, int n) { return pdx_ir(x, n); }
CALLEE(pdx)
COPY64(pdx)
COPY64(pdx_callee)
int main(void) {
	FDRUN(pdx, 1); FDRUN(pdx, 2); FDRUN(pdx, 3); FDRUN(pdx, 4); FDRUN(pdx, 5); FDRUN(pdx, 6); FDRUN(pdx, 9);
	FDRUN(pdx_callee, 4); FDRUN(pdx_callee, 6); FDRUN(pdx_callee, 9);
	return failures != 0;
}
`
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCWithIR(t, src, pdxIR, o)) })
	}
}
