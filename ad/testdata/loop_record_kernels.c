/* Loop reversal where a trip count or a counter on entry is not provably
 * recomputable: the reverse must record it instead (counters.go's
 * exactCount states what a recomputed count assumes). loopRecordKernels are
 * programs built to break the recomputation rules: counts an earlier loop
 * computes from the data, counts reset on a new maximum, counts the outer
 * loop changes, bounds in memory the loops overwrite, several exits, an
 * exit test some iterations skip, a narrow counter whose step wraps past
 * the bound, unsigned, != and down-counting loops (zero-trip included),
 * counts from a call, do-while loops entered past their bound.
 * (loopRecordKernels in looprecord_test.go; compiled after loopRunPrelude) */
/* A count an earlier loop computes from the data bounds a later loop. */
__attribute__((noinline)) double countpos(double *x, int n) {
	int c = 0;
	for (int i = 0; i < n; i++) if (x[i] > 0.5) c++;
	double s = 0;
	for (int i = 0; i < c; i++) s += x[i] * x[i] * (i + 1);
	int z = 0; /* no value is above 2: a zero-trip loop after */
	for (int i = 0; i < n; i++) if (x[i] > 2) z++;
	for (int i = 0; i < z; i++) s += sin(x[i]);
	return s;
}

/* The count reset on each new maximum (of buckets, so that central
 * differences do not break ties), the kept values summed after. */
__attribute__((noinline)) double resetmax(double *x, int n) {
	double best = -1e30, *keep = malloc(n * sizeof *keep);
	int c = 0;
	for (int i = 0; i < n; i++) {
		double b = floor(x[i] * 4);
		if (b > best) { c = 0; best = b; }
		if (b == best) keep[c++] = x[i] * x[i];
	}
	double s = 0;
	for (int i = 0; i < c; i++) s += keep[i] * (i + 2);
	free(keep);
	return s;
}

/* A count the outer loop recomputes from the data in each iteration. */
__attribute__((noinline)) double outercount(double *x, int n) {
	for (int k = 0; k < 3; k++) {
		int m = 0;
		for (int i = 0; i < n; i++) if (x[i] > 0.45 + 0.05 * k) m++;
		for (int j = 0; j < m; j++) x[j] = sin(x[j]) * x[j] + 0.1 * k;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += x[i] * (i + 1);
	return e;
}

/* Bounds in memory: the first loop writes the struct the bound is in,
 * the later loops' bounds overwrite it, the last loop's body lowers it. */
struct meta { int n, hits; };
__attribute__((noinline)) double membound_in(double *x, struct meta *s) {
	double e = 0;
	for (int i = 0; i < s->n; i++) { e += x[i] * x[i]; if (x[i] > 0.5) s->hits++; }
	s->n = s->hits;
	for (int i = 0; i < s->n; i++) e += x[i] * x[i] * x[i];
	s->n = 1;
	for (int i = 0; i < s->n; i++) e += sin(x[i]);
	s->n = 7; /* the body lowers its own bound */
	for (int i = 0; i < s->n; i++) { e += x[i] * x[i + 1]; if (x[i] > 0.6) s->n--; }
	return e;
}
__attribute__((noinline)) double membound(double *x, int n) { struct meta s = {n, 0}; return membound_in(x, &s); }

/* Several exits: two bounds on one variable; an exit on the data. */
__attribute__((noinline)) double twoexits(double *x, int n) {
	int m = (int)(x[0] * 10 + 0.5);
	double s = 0;
	for (int i = 0; i < n; i++) {
		if (i >= m) break;
		s += x[i] * x[i];
	}
	for (int i = 0; i < n; i++) {
		s += sin(x[i]) * (i + 1);
		if (x[i] > 0.8) break;
	}
	return s;
}

/* An exit test on the index that iterations skip unless the data says:
 * the loop runs past its bound (n/6, left at i = 3). */
__attribute__((noinline)) double condexit(double *x, int n) {
	int m = n / 6;
	double s = 0;
	for (int i = 0;; i++) {
		s += x[i % n] * x[(i + 1) % n];
		if (x[i % n] > 0.6) {
			if (i >= m) break;
		}
	}
	return s;
}

/* A 16-bit counter converted back after each step (defined in C, no nsw
 * in the IR): it wraps past 32767 and runs far longer than (32700 -
 * 32000) / 300 steps. */
__attribute__((noinline)) double shortwrap(double *x, int n) {
	double s = 0;
	for (short c = 32000; c < 32700; c = (short)(c + 300)) {
		int k = (unsigned short)c % n;
		s += x[k] * x[(k + 1) % n];
	}
	return s;
}

/* Unsigned, != and down-counting loops, zero-trip ones included. */
__attribute__((noinline)) double preds(double *x, int n) {
	double s = 0;
	unsigned lo = (unsigned)(x[1] * 10), hi = (unsigned)(x[2] * 10);
	for (unsigned i = lo; i < hi; i++) s += x[i % n] * x[i % n];
	for (unsigned i = hi; i < lo; i++) s += x[i % n];
	for (long i = lo; i != (long)hi + 3; i++) s += sin(x[i % n]);
	for (int i = n - 1; i >= 0; i -= 2) s += x[i] * x[(i + 3) % n];
	for (int i = 0; i < n; i++)
		for (unsigned j = i; j < hi; j += 2) s += x[j % n] * x[i] * 0.1;
	return s;
}

/* A count from a call (its result is the augmented call's). */
__attribute__((noinline)) int count_above(const double *x, int n, double t) {
	int c = 0;
	for (int i = 0; i < n; i++) c += x[i] > t;
	return c;
}
__attribute__((noinline)) double callcount(double *x, int n) {
	double s = 0;
	for (int k = 0; k < 2; k++) {
		int m = count_above(x, n, 0.4 + 0.1 * k);
		for (int j = 0; j < m; j++) x[j] = x[j] * cos(x[j]) + 0.2;
		s += x[0];
	}
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}

/* Do-while loops entered past their bound, one inside a loop. */
__attribute__((noinline)) double dowhile(double *x, int n) {
	double s = 0;
	int m = (int)(x[3] * 4) - 2;
	int i = 0;
	do { s += x[i] * x[i + 1]; i++; } while (i < m);
	for (int k = 0; k < 2; k++) {
		int j = n;
		do { x[j - 1] = sin(x[j - 1]) + 0.1; j -= 3; } while (j > m + k);
	}
	for (int q = 0; q < n; q++) s += x[q] * (q + 1);
	return s;
}

CALLEE(countpos) CALLEE(resetmax) CALLEE(outercount) CALLEE(twoexits) CALLEE(condexit)
CALLEE(shortwrap) CALLEE(preds) CALLEE(callcount) CALLEE(dowhile)
COPY64(countpos) COPY64(resetmax) COPY64(outercount) COPY64(membound) COPY64(twoexits)
COPY64(condexit) COPY64(shortwrap) COPY64(preds) COPY64(callcount) COPY64(dowhile)
COPY64(countpos_callee) COPY64(resetmax_callee) COPY64(outercount_callee) COPY64(twoexits_callee)
COPY64(condexit_callee) COPY64(shortwrap_callee) COPY64(preds_callee) COPY64(callcount_callee)
COPY64(dowhile_callee)

int main(void) {
	FDRUN(countpos, 9); FDRUN(countpos_callee, 9);
	FDRUN(resetmax, 9); FDRUN(resetmax_callee, 9);
	FDRUN(outercount, 9); FDRUN(outercount_callee, 9);
	FDRUN(membound, 9);
	FDRUN(twoexits, 9); FDRUN(twoexits_callee, 9);
	FDRUN(condexit, 9); FDRUN(condexit_callee, 9);
	FDRUN(shortwrap, 9); FDRUN(shortwrap_callee, 9);
	FDRUN(preds, 9); FDRUN(preds_callee, 9);
	FDRUN(callcount, 9); FDRUN(callcount_callee, 9);
	FDRUN(dowhile, 9); FDRUN(dowhile_callee, 9);
	return failures != 0;
}
