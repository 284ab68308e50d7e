/* The program of TestPacketIntLoads (retype_test.go): pairs of doubles
   loaded as vectors of four 32-bit integers and used as doubles (Eigen's
   matrix-product kernel at -O2 loads its packets so), with a phi and a
   select carrying the packet, and a packet stored as integers. The
   gradient, reverse and forward mode, against central differences. */
#include <emmintrin.h>
#include <math.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;
typedef int v4si __attribute__((vector_size(16)));

__attribute__((noinline)) double f(const double *x, double *scratch, int n) {
	__m128d acc = _mm_setzero_pd();
	v4si keep = *(const v4si *)&x[0];
	for (int i = 0; i < n; i += 2) {
		v4si bits = *(const v4si *)&x[i];
		if (x[i] > 0.5)
			keep = bits;
		__m128d v = (__m128d)bits;
		acc = _mm_add_pd(acc, _mm_mul_pd(v, _mm_add_pd(v, (__m128d)keep)));
	}
	*(v4si *)scratch = keep;
	double r[2];
	_mm_storeu_pd(r, acc);
	return r[0] + 3 * r[1];
}

int main(void) {
	enum { n = 8 };
	double x[n] = {0.3, -0.2, 0.7, 0.1, 0.9, -0.6, 0.4, 0.55}, dx[n] = {0};
	__attribute__((aligned(16))) double s[2], ds[2] = {0};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, s, ds, enzyme_const, n);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		double t[n] = {0};
		t[i] = 1;
		double dt[2] = {0};
		double fw = __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_dup, s, dt, enzyme_const, n);
		double keep = x[i], h = 1e-6;
		x[i] = keep + h; double a = f(x, s, n);
		x[i] = keep - h; double b = f(x, s, n);
		x[i] = keep;
		double fd = (a - b) / (2 * h);
		printf("x%d: reverse %.9g forward %.9g central difference %.9g\n", i, dx[i], fw, fd);
		bad |= !(fabs(dx[i] - fd) < 1e-6 && fabs(fw - fd) < 1e-6);
	}
	return bad;
}
