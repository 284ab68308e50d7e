/* Kernels that stress the conditions of the reverse sweep's bookkeeping
 * optimizations: counters restarted on entry (restartCounters), induction
 * phis rebuilt (lagging phis, remainder starts, exit values), path
 * decisions after vectorized loops, growth on entry, loop hints. Each
 * gradient, as root and as a split callee, against central differences
 * (TestLoopBookkeepingRun, loops_test.go; compiled after loopRunPrelude). */
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
/* lagging phi with non-matching start */
__attribute__((noinline)) double lag_bad(double *x, int n) {
	double s = 0; int k = n - 1;
	for (int i = 0; i < n; i++) { s += x[i] * x[k] + sin(x[k]); k = i; }
	return s;
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
/* two breaks to one block, the loop's index read past it */
__attribute__((noinline)) double br2(double *x, int n) {
	double e = 0;
	for (int s = 0; s < 3; s++) {
		int i;
		for (i = 0; i < n; i++) {
			if (x[i] > 0.75) break;
			x[i] = x[i] * x[i];
			if (x[i] < 0.01 * s) break;
		}
		e += x[i % n] * (i + 1);
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
/* alias check result differs between steps: a overlaps b on odd steps */
__attribute__((noinline)) double rt_alias(double *x, int n) {
	double e = 0; int m = n / 2, steps = n;
	for (int s = 0; s < steps; s++) {
		double *a = x + ((s & 1) ? 1 : m), *b = x;
		for (int i = 0; i < m; i++) a[i] = a[i] * 0.5 + 0.3 * sin(b[i]);
		e += x[s] * x[n - 1];
	}
	return e;
}
/* runtime step count, trip count varies per step incl. 0 */
__attribute__((noinline)) double rt_vary(double *x, int n) {
	double e = 0; int h = n / 2;
	for (int s = 0; s < n; s++) {
		int m = (h * (s % 3)) / 2;
		for (int i = 0; i < m; i++) x[h + i] = x[h + i] * 0.9 + x[i] * x[i];
		e += x[s] * x[n - 1];
	}
	return e;
}
/* runtime steps, vectorized loop with live-out last value, trip varies */
__attribute__((noinline)) double rt_live(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n; s++) {
		int m = n - s;
		double last = 0;
		for (int i = 0; i < m; i++) { last = x[i] * x[i]; x[i] = last * 0.5 + 0.1; }
		e += last * x[s];
	}
	return e;
}
/* remainder records: nonlinear overwrite, varying trip, grow on entry */
__attribute__((noinline)) double rt_rem(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n; s++) {
		int m = n - s;
		for (int i = 0; i < m; i++) x[i] = sin(x[i]) * 0.9 + 0.05;
		for (int i = 0; i < s; i++) x[n - 1 - i] = x[n - 1 - i] * x[n - 1 - i];
		e += x[s] * x[0];
	}
	return e;
}
/* data-dependent while loop without records, counter used after */
__attribute__((noinline)) double wh_data(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n; s++) {
		int j = 0; double a = 0;
		while (j < n && a < 0.5 + 0.1 * s) { a += x[j] * x[j]; j++; }
		e += sin(a) * x[(j + s) % n];
		x[s] = x[s] * 0.8 + 0.1 * a;
	}
	return e;
}
/* three deep: outer records, middle and inner none, counters read after */
__attribute__((noinline)) double nest3(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		double a = 0; int j, k = 0;
		for (j = 0; j < n - i; j++)
			for (k = 0; k < j; k++) a += x[k] * x[j];
		e += cos(a) * x[i] + x[(j + k) % n];
		x[i] = x[i] * x[i] * 0.5 + 0.2;
	}
	return e;
}
/* counter of loop 1 used as bound/offset of loop 2 */
__attribute__((noinline)) double chain(double *x, int n) {
	double e = 0;
	for (int s = 0; s < 3; s++) {
		int j; double a = 0;
		for (j = 0; j < n && x[j] < 0.8; j++) a += x[j];
		for (int k = 0; k < n - j; k++) a += x[j + k] * x[k];
		e += sin(a);
		x[s % n] = x[s % n] * 0.7 + 0.1;
	}
	return e;
}
/* loop entered from two places: a guard-skipped loop and a direct entry */
__attribute__((noinline)) double two_pre(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n; s++) {
		int j = (s & 1) ? s : 0;
		double a = (s & 1) ? x[s] : 0;
		for (; j < n; j++) a += x[j] * 0.5;
		e += a * x[s] + x[(j - 1 + n) % n];
		x[s] = cos(x[s]);
	}
	return e;
}
/* guard inside the step loop decided by data per step, vectorized loops */
__attribute__((noinline)) double guard_data(double *x, int n) {
	double e = 0; int h = n / 2;
	for (int s = 0; s < n; s++) {
		if (x[s] > 0.4) for (int i = 0; i < h; i++) x[h + i] = x[h + i] * 0.9 + x[i] * x[i];
		else for (int i = 0; i < n - s; i++) x[i] = x[i] * 0.95 + 0.01;
		e += x[s] * x[n - 1];
	}
	return e;
}
/* induction exit value with a varying start, sometimes skipped */
__attribute__((noinline)) double ind_lo(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n; s++) {
		int lo = (s * 5) % (n + 2), i;
		for (i = lo; i < n; i++) x[i] = x[i] * 0.9 + 0.05 * x[s];
		e += x[i % n] * x[s] + x[lo % n];
	}
	return e;
}
/* a rotated loop's lagging value read after the loop */
__attribute__((noinline)) double lag_after(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n; s++) {
		int prev = 0, i;
		for (i = 1; i < n - s; i++) { e += x[i] * x[prev]; prev = i; }
		x[prev] = sin(x[prev]) * x[s];
		e += x[prev] * x[(i - 1) % n];
	}
	return e;
}
/* inner function with restart-eligible loops and records, called in a loop */
__attribute__((noinline)) double inner4(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		double a = 0;
		for (int j = 0; j < n - i; j++) a += x[j] * x[j];
		e += log(1 + a) * x[i];
		x[i] = x[i] * 0.9 + 0.05 * a;
	}
	return e;
}
__attribute__((noinline)) double calls4(double *x, int n) {
	double e = 0;
	for (int r = 0; r < 3 && r < n; r++) e += inner4(x + r, n - r) * (r + 1);
	e += inner4(x, n / 2);
	return e;
}
/* negative starts, lagging from a negative start */
__attribute__((noinline)) double negs(double *x, int n) {
	double e = 0;
	for (int s = 0; s < 2; s++) {
		int k = -1;
		for (int i = -2; i < n - 2; i++) { e += x[i + 2] * (k >= 0 ? x[k] : 1.0); x[i + 2] = sin(x[i + 2]); k = i + 2; }
	}
	return e;
}
__attribute__((noinline)) double gbound2(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n; s++) {
		int i = 0;
		if (x[s] > 0.35) {
			int m = n - (int)(x[s] * 3);
			for (i = 0; i < m; i++) x[i] = x[i] * 0.5 + 0.2;
		}
		e += x[i % n] * x[s];
	}
	return e;
}

CALLEE(rs_after)
COPY64(rs_after)
COPY64(rs_after_callee)
CALLEE(rs_zero)
COPY64(rs_zero)
COPY64(rs_zero_callee)
CALLEE(lag_bad)
COPY64(lag_bad)
COPY64(lag_bad_callee)
CALLEE(br2)
COPY64(br2)
COPY64(br2_callee)
CALLEE(break_after)
COPY64(break_after)
COPY64(break_after_callee)
CALLEE(v_break)
COPY64(v_break)
COPY64(v_break_callee)
CALLEE(rt_alias)
COPY64(rt_alias)
COPY64(rt_alias_callee)
CALLEE(rt_vary)
COPY64(rt_vary)
COPY64(rt_vary_callee)
CALLEE(rt_live)
COPY64(rt_live)
COPY64(rt_live_callee)
CALLEE(rt_rem)
COPY64(rt_rem)
COPY64(rt_rem_callee)
CALLEE(wh_data)
COPY64(wh_data)
COPY64(wh_data_callee)
CALLEE(nest3)
COPY64(nest3)
COPY64(nest3_callee)
CALLEE(chain)
COPY64(chain)
COPY64(chain_callee)
CALLEE(two_pre)
COPY64(two_pre)
COPY64(two_pre_callee)
CALLEE(guard_data)
COPY64(guard_data)
COPY64(guard_data_callee)
CALLEE(ind_lo)
COPY64(ind_lo)
COPY64(ind_lo_callee)
CALLEE(lag_after)
COPY64(lag_after)
COPY64(lag_after_callee)
CALLEE(calls4)
COPY64(calls4)
COPY64(calls4_callee)
CALLEE(negs)
COPY64(negs)
COPY64(negs_callee)
CALLEE(gbound2)
COPY64(gbound2)
COPY64(gbound2_callee)
#define ALL(n) \
	FDRUN(rs_after, n); FDRUN(rs_after_callee, n); \
	FDRUN(rs_zero, n); FDRUN(rs_zero_callee, n); \
	FDRUN(lag_bad, n); FDRUN(lag_bad_callee, n); \
	FDRUN(break_after, n); FDRUN(break_after_callee, n); \
	FDRUN(br2, n); FDRUN(br2_callee, n); \
	FDRUN(v_break, n); FDRUN(v_break_callee, n); \
	FDRUN(rt_alias, n); FDRUN(rt_alias_callee, n); \
	FDRUN(rt_vary, n); FDRUN(rt_vary_callee, n); \
	FDRUN(rt_live, n); FDRUN(rt_live_callee, n); \
	FDRUN(rt_rem, n); FDRUN(rt_rem_callee, n); \
	FDRUN(wh_data, n); FDRUN(wh_data_callee, n); \
	FDRUN(nest3, n); FDRUN(nest3_callee, n); \
	FDRUN(chain, n); FDRUN(chain_callee, n); \
	FDRUN(two_pre, n); FDRUN(two_pre_callee, n); \
	FDRUN(guard_data, n); FDRUN(guard_data_callee, n); \
	FDRUN(ind_lo, n); FDRUN(ind_lo_callee, n); \
	FDRUN(lag_after, n); FDRUN(lag_after_callee, n); \
	FDRUN(calls4, n); FDRUN(calls4_callee, n); \
	FDRUN(negs, n); FDRUN(negs_callee, n); \
	FDRUN(gbound2, n); FDRUN(gbound2_callee, n);
int main(void) {
	static const int sizes[] = {1, 2, 3, 4, 5, 8, 9, 17};
	for (int k = 0; k < 8; k++) {
		int n = sizes[k];
		ALL(n);
	}
	return failures != 0;
}
