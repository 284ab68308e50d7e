/* pickRuns are max/min loops whose reverse reads picks: a GMM-like
 * log-sum-exp per row of an overwritten buffer (K columns, the max loop
 * not unrolled), a running max and min with ties and NaNs (the adjoint
 * goes to fmax's or fmin's first argument on a tie, to the other on a NaN,
 * as the rule always did: checked against the analytic gradient), and a
 * max loop that needs its operands anyway.
 * (pickRuns in pick_test.go; compiled after loopRunPrelude) */
int K = 4; /* columns: a global, so that the loops stay loops */
__attribute__((noinline)) double lserows(double *x, int n) {
	double w[16], t = 0;
	int k = K;
	for (int r = 0; r + k <= n; r += k) {
		for (int j = 0; j < k; j++) w[j] = x[r + j] * x[(r + j + 1) % n] - 0.3 * x[r + j];
		double mx = w[0];
		for (int j = 1; j < k; j++) mx = fmax(mx, w[j]);
		double mn = w[0];
		for (int j = 1; j < k; j++) mn = fmin(w[j], mn);
		double s = 0;
		for (int j = 0; j < k; j++) s += exp(w[j] - mx);
		t += log(s) + mx + 0.25 * mn;
	}
	return t;
}

/* The running max and min of x, then x overwritten. */
__attribute__((noinline)) double ties(double *x, int n) {
	double mx = x[0], mn = x[0];
	for (int i = 1; i < n; i++) {
		mx = fmax(mx, x[i]);
		mn = fmin(x[i], mn);
	}
	for (int i = 0; i < n; i++) x[i] = 0;
	return 3 * mx + mn;
}

/* A running max whose previous value and element the loop also multiplies. */
__attribute__((noinline)) double maxprod(double *x, int n) {
	double mx = x[0], s = 0;
	for (int i = 1; i < n; i++) {
		s += mx * x[i];
		mx = fmax(mx, x[i]);
		x[i] = 0.5 * x[i];
	}
	return s + mx;
}

CALLEE(lserows)
CALLEE(maxprod)
COPY64(lserows)
COPY64(maxprod)
COPY64(lserows_callee)
COPY64(maxprod_callee)
/* ties: the gradient of ties at x, against want (3 into the element fmax
 * returned, 1 into fmin's). */
static void tiecheck(const char *name, const double *x0, const double *want, int n) {
	double x[8], dx[8] = {0};
	memcpy(x, x0, n * sizeof *x);
	__enzyme_autodiff((void *)ties, enzyme_dup, x, dx, enzyme_const, n);
	for (int i = 0; i < n; i++) {
		char what[64];
		snprintf(what, sizeof what, "%s[%d]", name, i);
		check(what, dx[i], want[i], 0);
	}
}
int main(void) {
	if (getenv("K")) K = atoi(getenv("K"));
	FDRUN(lserows, 12);
	FDRUN(lserows, 40);
	FDRUN(lserows_callee, 12);
	FDRUN(maxprod, 9);
	FDRUN(maxprod_callee, 9);
	/* fmax(3, 3) keeps mx (x[1]); fmin(0, 0) takes x[i] (x[4]). */
	tiecheck("tie", (double[]){1, 3, 3, 0, 0, 2}, (double[]){0, 3, 0, 0, 1, 0}, 6);
	/* no ties: the max is x[2], the min x[5] */
	tiecheck("distinct", (double[]){1, 2.5, 4, 0.5, 3, -1}, (double[]){0, 0, 3, 0, 0, 1}, 6);
	/* NaNs are skipped: fmax(NaN, 2) is x[1], fmin(NaN, ...) keeps the number */
	tiecheck("nan", (double[]){NAN, 2, NAN, 1, -0.5}, (double[]){0, 3, 0, 0, 1}, 5);
	return failures != 0;
}
