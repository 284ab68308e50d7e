// Integers stored over doubles that carry derivatives: the double the
// memory then holds was not computed by float operations from the active
// inputs, so its derivative is zero, in both sweeps. Each mode overwrites
// element k (k and k+1 for the vector) of a scratch array filled from x:
//   mode 0: a bit pattern made by integer arithmetic, memcpy'd over it;
//   mode 1: an integer counter stored through a union's integer member;
//   mode 2: a struct copy whose integer field overlays a double of
//           another variant;
//   mode 3: two 32-bit words, each over half the double;
//   mode 4: two 64-bit patterns copied over two doubles at once.
// Built with -DVARIANT, only mode 2; with -DHALVES, only mode 3.
// Gradients (reverse and forward) against central finite differences.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 6

// A double in [1, 2) from integer arithmetic only.
static inline uint64_t pattern(int n, int k) {
	uint64_t h = (uint64_t)(n * 2654435761u + k) * 0x9E3779B97F4A7C15ull;
	return 0x3FF0000000000000ull | (h >> 12);
}

union cell {
	double d;
	int64_t i;
};

struct var {
	int tag;
	union {
		double d;
		int64_t n;
	} u;
};

// fill computes the scratch values from x; sum reads them back.
static inline __attribute__((always_inline)) void fill(const double *x, double *a) {
	for (int i = 0; i < N; i++) a[i] = x[i] * x[i] + 0.5 * x[(i + 1) % N];
}
static inline __attribute__((always_inline)) double sum(const double *x, const double *a) {
	double s = 0;
	for (int i = 0; i < N; i++) s += a[i] * sin(x[i]);
	return s;
}

static inline __attribute__((always_inline)) double objective0(const double *x, int n, int k) {
	double a[N];
	fill(x, a);
	uint64_t bits = pattern(n, k);
	memcpy(&a[k], &bits, sizeof bits);
	return sum(x, a);
}
static inline __attribute__((always_inline)) double objective1(const double *x, int n, int k) {
	double a[N];
	union cell c[N];
	fill(x, a);
	for (int i = 0; i < N; i++) c[i].d = a[i];
	c[k].i = (int64_t)n * 3 + k + 0x3FE0000000000000ll;
	for (int i = 0; i < N; i++) a[i] = c[i].d;
	return sum(x, a);
}
static inline __attribute__((always_inline)) double objective2(const double *x, int n, int k) {
	double a[N];
	struct var v[N];
	fill(x, a);
	for (int i = 0; i < N; i++) v[i].tag = 1, v[i].u.d = a[i];
	struct var w = {2, {0}};
	w.u.n = (int64_t)pattern(n, k);
	v[k] = w;
	for (int i = 0; i < N; i++) a[i] = v[i].u.d * v[i].tag;
	return sum(x, a);
}
static inline __attribute__((always_inline)) double objective3(const double *x, int n, int k) {
	double a[N];
	fill(x, a);
	uint64_t bits = pattern(n, k);
	uint32_t lo = (uint32_t)bits, hi = (uint32_t)(bits >> 32);
	memcpy((char *)&a[k], &lo, 4);
	memcpy((char *)&a[k] + 4, &hi, 4);
	return sum(x, a);
}
static inline __attribute__((always_inline)) double objective4(const double *x, int n, int k) {
	double a[N];
	fill(x, a);
	uint64_t w[2] = {pattern(n, k), pattern(n + 1, k)};
	memcpy(&a[k], w, sizeof w);
	return sum(x, a);
}

#define MODE(m)                                                                                          \
	__attribute__((noinline)) double f##m(const double *x, int n, int k) { return objective##m(x, n, k); } \
	static void g##m(const double *x, double *dx, int n, int k) {                                          \
		__enzyme_autodiff((void *)f##m, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, k);               \
	}                                                                                                      \
	static double t##m(const double *x, const double *dx, int n, int k) {                                  \
		return __enzyme_fwddiff((void *)f##m, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, k);         \
	}
#if defined(HALVES)
MODE(3)
#elif defined(VARIANT)
MODE(2)
#else
MODE(0)
MODE(1)
MODE(4)
#endif

typedef double (*fn)(const double *, int, int);
typedef void (*gn)(const double *, double *, int, int);
typedef double (*tn)(const double *, const double *, int, int);

static int failures;

static void check(const char *name, fn f, gn g, tn t, double *x, int n, int k) {
	double dx[N] = {0};
	g(x, dx, n, k);
	for (int i = 0; i < N; i++) {
		double h = 1e-6, keep = x[i];
		x[i] = keep + h;
		double hi = f(x, n, k);
		x[i] = keep - h;
		double lo = f(x, n, k);
		x[i] = keep;
		double fd = (hi - lo) / (2 * h);
		double seed[N] = {0};
		seed[i] = 1;
		double tan = t(x, seed, n, k);
		if (!(fabs(dx[i] - fd) <= 1e-6 * fmax(1.0, fabs(fd)))) {
			printf("FAIL %s reverse dx[%d]: got %.17g want %.17g\n", name, i, dx[i], fd);
			failures++;
		}
		if (!(fabs(tan - fd) <= 1e-6 * fmax(1.0, fabs(fd)))) {
			printf("FAIL %s forward dx[%d]: got %.17g want %.17g\n", name, i, tan, fd);
			failures++;
		}
	}
	printf("%s done\n", name);
}

int main(int argc, char **argv) {
	(void)argv;
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.3 * sin(1.7 * i + 0.3);
	int n = argc + 6, k = argc + 1;
#if defined(HALVES)
	check("halves", f3, g3, t3, x, n, k);
#elif defined(VARIANT)
	check("variant", f2, g2, t2, x, n, k);
#else
	check("hashed", f0, g0, t0, x, n, k);
	check("union", f1, g1, t1, x, n, k);
	check("lanes", f4, g4, t4, x, n, k);
#endif
	return failures != 0;
}
