/* The programs of TestPointerKeptInGlobal (globalescape_test.go), compiled
   after checkPrelude with one SHAPE_* macro defined. f keeps a pointer to
   memory holding derivatives (out) in the global kept, which has no
   shadow. Gradient at x = (1.5, 2) where f = out[0]^2 + out[1]^2 with
   out = (x0, x0*x1): (15, 9). */
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double *kept, *table;

#if SHAPE_WRITE_IN_CALLEE
/* The derivative is written through the global in a callee. */
__attribute__((noinline)) void bump(const double *x) { kept[1] += x[0] * x[1]; }
#endif
#if SHAPE_STORE_IN_CALLEE
/* A callee keeps the pointer it is given. */
__attribute__((noinline)) void keep(double *p) { kept = p; }
#endif
#if SHAPE_CALLEE_GIVEN_GLOBAL
/* Given no derivatives, so not differentiated: reads the pointer from the
   global it is given. */
__attribute__((noinline)) void twice_through(double **pp) { (*pp)[1] = 2 * (*pp)[0]; }
#endif
#if SHAPE_CALLEE_GIVEN_LOADED
/* Given no derivatives, so not differentiated: the pointer it is given
   was read from the global. */
__attribute__((noinline)) void twice(double *p) { p[1] = 2 * p[0]; }
#endif

double f(const double *x) {
	double *out = malloc(2 * sizeof(double));
#if SHAPE_STORE_IN_CALLEE
	keep(out);
#else
	kept = out;
#endif
#if SHAPE_READ_THROUGH_GLOBAL
	/* Written under its own name, read back through the global. */
	out[0] = x[0];
	out[1] = x[0] * x[1];
	double r = kept[0] * kept[0] + kept[1] * kept[1];
#else
	out[0] = x[0];
	out[1] = 0;
#if SHAPE_WRITE_IN_CALLEE
	bump(x);
#elif SHAPE_OVERWRITE_THROUGH_GLOBAL
	/* Overwritten through the global with a value read through it: no
	   derivative is written there, but one moves. */
	kept[1] = kept[0] * 2;
#elif SHAPE_CALLEE_GIVEN_LOADED
	twice(kept);
#elif SHAPE_CALLEE_GIVEN_GLOBAL
	twice_through(&kept);
#elif SHAPE_CACHE || SHAPE_INACTIVE_DATA
	/* kept is only a record of the buffer, never used here. */
	out[1] += x[0] * x[1];
#else
	/* Written through the global, read back under its own name. */
	kept[1] += x[0] * x[1];
#endif
	double r = out[0] * out[0] + out[1] * out[1];
#endif
#if SHAPE_INACTIVE_DATA
	/* A global pointer to data without derivatives, kept and read back. */
	double *scale = malloc(sizeof(double));
	scale[0] = 2;
	table = scale;
	r *= table[0];
	free(scale);
#endif
	free(out);
	kept = 0;
	return r;
}

int main(void) {
	double x[2] = {1.5, 2}, dx[2] = {0, 0};
#if SHAPE_FORWARD
	for (int i = 0; i < 2; i++) {
		double t[2] = {i == 0, i == 1};
		dx[i] = __enzyme_fwddiff((void *)f, enzyme_dup, x, t);
	}
#else
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx);
#endif
	for (int i = 0; i < 2; i++) {
		double h = 1e-6, xp[2] = {x[0], x[1]}, xm[2] = {x[0], x[1]};
		xp[i] += h;
		xm[i] -= h;
		check("d f / dx (central difference)", dx[i], (f(xp) - f(xm)) / (2 * h), 1e-6);
	}
#if SHAPE_INACTIVE_DATA
	double want[2] = {30, 18};
#elif SHAPE_OVERWRITE_THROUGH_GLOBAL || SHAPE_CALLEE_GIVEN_LOADED || SHAPE_CALLEE_GIVEN_GLOBAL
	double want[2] = {15, 0}; /* f = 5 x0^2 */
#else
	double want[2] = {15, 9};
#endif
	CHECK("d f / dx0", dx[0], want[0]);
	CHECK("d f / dx1", dx[1], want[1]);
	return failures != 0;
}
