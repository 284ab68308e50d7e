// Integers stored over floats in arrays of structs and unions at a
// variable index, where the type analysis keeps no facts of the elements
// (the heap) or keeps them per element (the stack): the float each
// overwrites has a zero derivative. Built with -DMODE=m:
//   mode 0: a heap array of variant structs, the integer variant copied in;
//   mode 1: a heap array of unions, the integer member stored;
//   mode 2: a stack array of mixed structs copied whole, then 4 bytes of
//           an int copied over one element's float field;
//   mode 3: a heap array of mixed structs, an int stored over one float.
// Gradients (reverse, forward and forward of width 2) against central
// finite differences (wider steps where floats round the values).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[2]; } v2;
v2 __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");

#define N 6
struct var { int tag; union { double d; int64_t n; } u; };
struct mix { double a; int32_t b; float c; };

static inline uint64_t pattern(int n, int k) {
	uint64_t h = (uint64_t)(n * 2654435761u + k) * 0x9E3779B97F4A7C15ull;
	return 0x3FF0000000000000ull | (h >> 12);
}

__attribute__((noinline)) double f(const double *x, int n, int k) {
	double s = 0;
#if MODE == 0
	struct var *v = malloc(N * sizeof *v);
	for (int i = 0; i < N; i++) v[i].tag = 1, v[i].u.d = x[i] * x[i];
	struct var w = {2, {0}};
	w.u.n = (int64_t)pattern(n, k);
	v[k] = w;
	for (int i = 0; i < N; i++) s += v[i].u.d * sin(x[i]) * v[i].tag;
	free(v);
#elif MODE == 1
	union { double d; int64_t i; } *c = malloc(N * sizeof *c);
	for (int i = 0; i < N; i++) c[i].d = x[i] * x[(i + 1) % N];
	c[k].i = (int64_t)pattern(n, k);
	for (int i = 0; i < N; i++) s += c[i].d * cos(x[i]);
	free(c);
#elif MODE == 2
	struct mix m[N], t[N];
	for (int i = 0; i < N; i++) m[i].a = x[i] * 2, m[i].b = i, m[i].c = (float)(x[i] * x[i]);
	memcpy(t, m, sizeof m);
	int32_t bits = (int32_t)(pattern(n, k) >> 40);
	memcpy((char *)&t[k] + offsetof(struct mix, c), &bits, 4);
	for (int i = 0; i < N; i++) s += t[i].a * t[i].c + t[i].b;
#else
	struct mix *m = malloc(N * sizeof *m);
	for (int i = 0; i < N; i++) m[i].a = x[i] * 2, m[i].b = i, m[i].c = (float)(x[i] * x[i]);
	*(int32_t *)&m[k].c = (int32_t)(pattern(n, k) >> 40);
	for (int i = 0; i < N; i++) s += m[i].a * sin(m[i].c) + m[i].b;
	free(m);
#endif
	return s;
}

static int failures;
int main(int argc, char **argv) {
	(void)argv;
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.3 * sin(1.7 * i + 0.3);
	int n = argc + 6, k = argc + 1;
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, k);
	for (int i = 0; i < N; i += 2) {
		double h = MODE >= 2 ? 1e-3 : 1e-6, keep = x[i];
		x[i] = keep + h; double hi = f(x, n, k);
		x[i] = keep - h; double lo = f(x, n, k);
		x[i] = keep;
		double fd = (hi - lo) / (2 * h);
		double s1[N] = {0}, s2[N] = {0};
		s1[i] = 1; s2[i + 1] = 1;
		double tan = __enzyme_fwddiff((void *)f, enzyme_dup, x, s1, enzyme_const, n, enzyme_const, k);
		v2 b = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup, x, s1, s2, enzyme_const, n, enzyme_const, k);
		keep = x[i + 1];
		x[i + 1] = keep + h; hi = f(x, n, k);
		x[i + 1] = keep - h; lo = f(x, n, k);
		x[i + 1] = keep;
		double fd2 = (hi - lo) / (2 * h);
		double tol = (MODE >= 2 ? 2e-3 : 1e-5) * fmax(1.0, fabs(fd));
		if (!(fabs(dx[i] - fd) <= tol)) printf("FAIL reverse %d %.12g %.12g\n", i, dx[i], fd), failures++;
		if (!(fabs(tan - fd) <= tol)) printf("FAIL forward %d %.12g %.12g\n", i, tan, fd), failures++;
		if (!(fabs(b.d[0] - fd) <= tol)) printf("FAIL batch0 %d %.12g %.12g\n", i, b.d[0], fd), failures++;
		if (!(fabs(b.d[1] - fd2) <= (MODE >= 2 ? 2e-3 : 1e-5) * fmax(1.0, fabs(fd2)))) printf("FAIL batch1 %d %.12g %.12g\n", i + 1, b.d[1], fd2), failures++;
	}
	printf("done %d\n", failures);
	return failures != 0;
}
