/* Shapes for path decisions from conditions computed each iteration from
 * affine induction variables (iterationCond), exit counts of != loops
 * without a clamp (exitCount) and growth on entry decided over several
 * paths (entryPaths): triangular, skewed, growing and shrinking nests,
 * loops counting down by 1, 2 and 3 with != tests, inner bounds that go
 * negative, inner loops skipped on some outer iterations by branches that
 * do not dominate them, bodies that vectorize (remainder loops at
 * -O2/-O3) (TestIterationPathShapesRun, pathiter_test.go; compiled after
 * loopRunPrelude). */
/* triangular below and above the diagonal, vectorizable bodies */
__attribute__((noinline)) double tri_lo(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++) x[j] = x[j] * 0.9 + 0.05 * x[i];
		for (int j = i; j < n; j++) x[j] = sin(x[j]) + 0.1;
		e += x[i] * x[n - 1 - i];
	}
	return e;
}
/* skewed: j from i to i + m, m = n/2, into a buffer of 2n */
__attribute__((noinline)) double skew(double *x, int n) {
	double y[128], e = 0;
	for (int k = 0; k < 2 * n; k++) y[k] = x[k % n];
	int m = n / 2;
	for (int i = 0; i < n; i++) {
		for (int j = i; j < i + m; j++) y[j] = y[j] * y[j] * 0.5 + 0.2;
		e += y[i + m] * x[i];
	}
	return e;
}
/* growing 2i+1 and shrinking n - 2i (negative for i > n/2) */
__attribute__((noinline)) double grow_shrink(double *x, int n) {
	double y[128], e = 0;
	for (int k = 0; k < 2 * n + 1; k++) y[k] = x[k % n];
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < 2 * i + 1; j++) y[j] = cos(y[j]) * 0.8;
		for (int j = 0; j < n - 2 * i; j++) y[j] = y[j] * y[j] + 0.01;
		e += y[i] * x[i];
	}
	return e;
}
/* counting down by 1, 2 and 3 with != from multiples of the step */
__attribute__((noinline)) double down123(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		for (int j = i; j != -1; j--) x[j] = x[j] * 0.9 + 0.1 * sin(x[j]);
		for (int j = 2 * i; j != 0; j -= 2) x[j / 2] = x[j / 2] * x[j / 2] * 0.5 + 0.1;
		for (int j = 3 * (n - 1 - i); j != 0; j -= 3) x[j / 3] = cos(x[j / 3]) + 0.05;
		e += x[i] * x[0];
	}
	return e;
}
/* an inner loop skipped on some outer iterations by a condition on i and a
   data-dependent one, neither dominating it; triangular count */
__attribute__((noinline)) double skipped(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		if (i % 3 == 1) goto next;
		if (x[i] > 0.45 && i > 1) goto next;
		for (int j = 0; j < n - i; j++) x[j] = x[j] * x[j] * 0.7 + 0.2;
	next:
		e += x[i] * x[n - 1];
		x[i] = x[i] * 0.5 + 0.1;
	}
	return e;
}
/* two paths into one inner loop with different counts, one of them
   negative past the middle (the loop then does not run) */
__attribute__((noinline)) double twopath(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		int m;
		if (i & 1) m = n - 2 * i; else m = i;
		for (int j = 0; j < m; j++) x[j] = sin(x[j] * x[i]) + 0.3;
		e += x[i];
	}
	return e;
}
/* a nest three deep: k < j < i, the innermost vectorizable */
__attribute__((noinline)) double tri3(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++) {
			for (int k = 0; k < j; k++) x[k] = x[k] * 0.95 + 0.02 * x[j];
			e += x[j] * x[i];
		}
	return e;
}
/* inner bound loaded from memory (a global table, negative entries) */
int counts[32] = {3, -2, 0, 5, 1, 7, -9, 2, 4, 0, 6, 1, 3, 8, -1, 2, 5, 0, 4, 3, 1, 2, 9, 0, 3, -4, 2, 6, 1, 0, 5, 2};
__attribute__((noinline)) double datadep(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		int m = counts[i] < n ? counts[i] : n;
		for (int j = 0; j < m; j++) x[j] = x[j] * 0.8 + 0.1 * x[i];
		e += x[i] * x[i];
	}
	return e;
}
/* unsigned counters with != down to zero, inner bound n - i */
__attribute__((noinline)) double udown(double *x, int n) {
	double e = 0;
	for (unsigned i = 0; i != (unsigned)n; i++) {
		for (unsigned j = n - i; j != 0; j--) x[j - 1] = x[j - 1] * 0.9 + 0.05 * x[i];
		e += x[i] * x[i];
	}
	return e;
}
/* != loops on 8- and 16-bit counters that wrap: (b - a) mod 256 iterations
   up, (a - b) mod 256 down, (b - a) mod 65536 / 2 by two */
__attribute__((noinline)) double wrap8(double *x, int n) {
	double e = 0;
	for (int i = 0; i < n; i++) {
		unsigned char a = (unsigned char)(200 + i * 37), b = (unsigned char)(i * 11);
		double acc = x[i];
		for (unsigned char j = a; j != b; j++) acc = sin(acc) * 0.99 + 0.01 * x[j % n];
		for (unsigned char j = a; j != b; j--) acc = cos(acc) * 0.5 + 0.02 * x[j % n];
		unsigned short c = (unsigned short)(65530 + 2 * i), d = (unsigned short)(2 * i * i);
		for (unsigned short j = c; j != d; j += 2) acc = acc * 0.999 + 0.001 * x[j % n] * x[j % n];
		e += acc * x[i];
	}
	return e;
}
/* inner counts from outer variables that are not affine: doubling, a step
   that alternates, a counter bumped only on some iterations */
__attribute__((noinline)) double nonaffine(double *x, int n) {
	double y[64], e = 0;
	for (int k = 0; k < n; k++) y[k] = x[k];
	int st = 1, c = 0;
	for (int i = 1, s = 0; i < 4 * n; i = 2 * i + 1, s += st, st = 3 - st) {
		int m = i < n ? i : n;
		for (int j = 0; j < m; j++) y[j] = y[j] * y[j] * 0.6 + 0.2;
		int m2 = s % n;
		for (int j = 0; j < m2; j++) y[j] = y[j] * 0.9 + 0.1 * y[m2];
		if (y[0] > 0.3) c++;
		for (int j = 0; j < c && j < n; j++) y[j] = y[j] * y[0] + 0.05;
		e += y[m - 1] * x[m2];
	}
	return e;
}
/* vectorized inner loops with remainders in a nest, entered past
   branches on values invariant in the nest (n, a flag, n - 3 which is
   negative for small n), records in each */
__attribute__((noinline)) double rem_inv(double *x, int n) {
	double e = 0;
	int m = n - 3, odd = n & 1, steps = n % 3 + 2;
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < n; i++) x[i] = x[i] * x[i] * 0.5 + 0.1;
		if (odd || m > 2)
			for (int i = 0; i < m; i++) x[i + 1] = x[i + 1] * x[i] + 0.2;
		else
			for (int i = 0; i < n - 1; i++) x[i] = x[i] * x[i + 1] * 0.9;
		e += x[0] * x[n - 1];
	}
	return e;
}
/* three deep, invariant inner count, a skip on the middle index that does
   not dominate the inner loop */
__attribute__((noinline)) double rem_mid(double *x, int n) {
	double e = 0;
	for (int s = 0; s < n % 2 + 1; s++)
		for (int r = 0; r < n % 4 + 1; r++) {
			if (r == 1 && n < 6) continue;
			for (int i = 0; i < n - r; i++) x[i] = x[i] * x[i] * 0.6 + 0.15 * x[r % n];
			e += x[r % n] * x[n - 1];
		}
	return e;
}

#define ALL(X) X(tri_lo) X(skew) X(grow_shrink) X(down123) X(skipped) X(twopath) X(tri3) X(datadep) X(udown) X(rem_inv) X(rem_mid) X(wrap8) X(nonaffine)
#define DECL(f) CALLEE(f) COPY64(f) COPY64(f##_callee)
ALL(DECL)
int main(void) {
#define RUN(f) FDRUN(f, 1); FDRUN(f, 2); FDRUN(f, 3); FDRUN(f, 4); FDRUN(f, 5); FDRUN(f, 7); FDRUN(f, 9); FDRUN(f, 17); \
	FDRUN(f##_callee, 3); FDRUN(f##_callee, 8);
	ALL(RUN)
	return failures != 0;
}
