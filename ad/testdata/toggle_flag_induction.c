/* Flags flipped every iteration (`plus = !plus`, i1 phis of xor with true)
   are rebuilt in the reverse sweep from the iteration counter instead of
   cached; flags flipped otherwise are not such flags. A call in each loop
   (weight, not inlined) keeps the flag a phi of the loop. Gradients against
   central differences. (checkPrelude is prepended.) */
#include <stdbool.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 7

__attribute__((noinline)) double weight(const double *x, int i, int n) { return x[i] * x[(i + 1) % n] + 0.5; }

/* Alternating signs, starting with plus. */
double alternating(double *x, int n) {
	double s = 0;
	bool plus = true;
	for (int i = 0; i < n; i++) {
		double t = x[i] * weight(x, i, n);
		s = plus ? s + t : s - t;
		plus = !plus;
	}
	return s;
}

/* The starting sign from the input. */
double start_from_input(double *x, int n) {
	double s = 0;
	bool plus = x[2] > 0.5;
	for (int i = 0; i < n; i++) {
		double t = x[i] * weight(x, i, n);
		s = plus ? s + t * t : s - t;
		plus = !plus;
	}
	return s;
}

/* Flipped only on some iterations: not a toggle. */
double flipped_sometimes(double *x, int n) {
	double s = 0;
	bool plus = true;
	for (int i = 0; i < n; i++) {
		double t = x[i] * weight(x, i, n);
		s = plus ? s + t : s - 2 * t;
		if (x[i] > 0.6) plus = !plus;
	}
	return s;
}

/* Flipped by a value of the iteration: not a toggle. */
double xor_by_value(double *x, int n) {
	double s = 0;
	bool plus = true;
	for (int i = 0; i < n; i++) {
		double t = x[i] * weight(x, i, n);
		s = plus ? s + t : s - 3 * t;
		plus ^= (i % 3 == 0);
	}
	return s;
}

/* A toggle in a nest, its start the outer toggle. */
double nested(double *x, int n) {
	double s = 0;
	bool outer = false;
	for (int k = 0; k < 3; k++) {
		bool inner = outer;
		for (int i = 0; i < n; i++) {
			double t = x[i] * weight(x, (i + k) % n, n);
			s = inner ? s + t : s - t * x[k];
			inner = !inner;
		}
		outer = !outer;
	}
	return s;
}

typedef double (*fn)(double *, int);

static void grad_check(const char *name, fn f, int n) {
	double x0[N], x[N], dx[N] = {0}, xp[N], xm[N];
	for (int i = 0; i < n; i++) x0[i] = 0.3 + 0.13 * i;
	memcpy(x, x0, sizeof x);
	if (f == alternating) __enzyme_autodiff((void *)alternating, enzyme_dup, x, dx, enzyme_const, n);
	if (f == start_from_input) __enzyme_autodiff((void *)start_from_input, enzyme_dup, x, dx, enzyme_const, n);
	if (f == flipped_sometimes) __enzyme_autodiff((void *)flipped_sometimes, enzyme_dup, x, dx, enzyme_const, n);
	if (f == xor_by_value) __enzyme_autodiff((void *)xor_by_value, enzyme_dup, x, dx, enzyme_const, n);
	if (f == nested) __enzyme_autodiff((void *)nested, enzyme_dup, x, dx, enzyme_const, n);
	const double h = 1e-6;
	for (int i = 0; i < n; i++) {
		memcpy(xp, x0, sizeof xp);
		memcpy(xm, x0, sizeof xm);
		xp[i] += h;
		xm[i] -= h;
		double fd = (f(xp, n) - f(xm, n)) / (2 * h);
		char what[64];
		snprintf(what, sizeof what, "%s d/dx%d", name, i);
		check(what, dx[i], fd, 1e-6);
	}
}

int main(void) {
	grad_check("alternating", alternating, N);
	grad_check("start_from_input", start_from_input, N);
	grad_check("flipped_sometimes", flipped_sometimes, N);
	grad_check("xor_by_value", xor_by_value, N);
	grad_check("nested", nested, N);
	grad_check("alternating n=1", alternating, 1);
	grad_check("nested n=2", nested, 3);
	printf("%d failures\n", failures);
	return failures != 0;
}
