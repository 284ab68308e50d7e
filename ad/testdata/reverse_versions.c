/* Reverse loop versions: nested loops whose reverses in a gradient get two
 * versions, picked by the inner loop's count at run time (short: scalar,
 * long: left to the vectorizer). rk integrates y' = f(y), f_0 = x_0,
 * f_j = x_j y_{j-1} (n >= d), by Runge-Kutta steps over heap stage vectors (their
 * shadows the gradient's own), as an ODE integrator written for std::vector
 * does; rk_pair calls it in a loop (a split pair with a tape); rk_dot's
 * inner loops add into the adjoint of a value from outside them (a sum the
 * reverse carries, not versioned). d = $DIM (3: every loop short; 20 and
 * 40: long). (TestReverseVersionRun in revversion_test.go; compiled after
 * loopRunPrelude) */
#include <stdlib.h>
int DIM = 3;   /* $DIM where set */
int STEPS = 3; /* a count the optimizer cannot unroll the loops around by */

static void rhs(const double *x, const double *y, double *dy, int d) {
	dy[0] = x[0];
	int j = 1;
	do dy[j] = x[j] * y[j - 1];
	while (++j < d);
}

__attribute__((noinline)) double rk(double *x, int n) {
	int d = DIM > 2 ? DIM : 2, steps = STEPS; /* do-while loops: no guards the reverse must decide */
	double h = 0.5 / steps;
	/* one block: the optimizer before AD cannot tell the vectors apart, and
	 * leaves the loops to the optimizer after AD, as it does std::vectors */
	double *y = calloc(6 * d, sizeof *y), *k1 = y + d, *k2 = k1 + d, *k3 = k2 + d, *k4 = k3 + d, *t = k4 + d;
	for (int s = 0; s < steps; s++) {
		rhs(x, y, k1, d);
		int j = 0;
		do t[j] = y[j] + h / 2 * k1[j];
		while (++j < d);
		rhs(x, t, k2, d);
		j = 0;
		do t[j] = y[j] + h / 2 * k2[j];
		while (++j < d);
		rhs(x, t, k3, d);
		j = 0;
		do t[j] = y[j] + h * k3[j];
		while (++j < d);
		rhs(x, t, k4, d);
		j = 0;
		do y[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
		while (++j < d);
	}
	double e = 0;
	for (int j = 0; j < d; j++) e += y[j] * (j + 1);
	free(y);
	return e;
}

__attribute__((noinline)) double rk_pair(double *x, int n) {
	double e = 0;
	for (int r = 0; r < 2; r++) e += (r + 1) * rk(x + r, n - 1);
	return e;
}

__attribute__((noinline)) double rk_dot(double *x, int n) {
	int d = DIM;
	double e = 0, *v = malloc(d * sizeof *v);
	for (int j = 0; j < d; j++) v[j] = x[j % n];
	for (int r = 0; r < STEPS; r++) {
		double a = x[r % n] * 0.5, s = 0;
		for (int j = 0; j < d; j++) v[j] = v[j] * 0.9 + a * x[(j + r) % n];
		for (int j = 0; j < d; j++) s += a * v[j];
		e += s * s;
	}
	free(v);
	return e;
}

COPY64(rk)
COPY64(rk_pair)
COPY64(rk_dot)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	if (getenv("STEPS")) STEPS = atoi(getenv("STEPS"));
	FDRUN(rk, 40);
	FDRUN(rk, 63);
	FDRUN(rk_pair, 41);
	FDRUN(rk_dot, 17);
	FDRUN(rk_dot, 50);
	return failures != 0;
}
