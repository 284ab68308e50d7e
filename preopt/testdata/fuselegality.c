/* Legality of FuseLoops (TestFuseLoopsLegality, fuse_test.go). Each function has two
 * adjacent loops; main prints what each computes, which must be the same
 * fused or not (clang -O0 is the reference). The functions named ok_* hold
 * a pair FuseLoops may fuse next to IR llir must write back unchanged; the
 * others hold a pair whose fusion would change the result. */
#include <complex.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double *G;

/* The second loop reads, through a global holding it, the buffer the first
 * one writes, one element ahead. */
double via_global(const double *x, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	G = xc;
	xc[d] = 0.5;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = G[j + 1];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The second loop reads a[d-1-j]. */
double reversed(const double *x, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = xc[d - 1 - j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The second loop reads a[2j] (the buffer is 2d long). */
double doubled(const double *x, int d) {
	double *xc = malloc(2 * d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < 2 * d; j++) xc[j] = 1;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = xc[2 * j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* A second pointer into the same fresh buffer, computed before the loops. */
double second_pointer(const double *x, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	double *y = xc + 1;
	xc[d] = 0.5;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = y[j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The pointer is copied through memory with memcpy (bytes of the pointer). */
double memcpy_alias(const double *x, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	unsigned char bytes[sizeof xc];
	double *alias;
	xc[d] = 0.5;
	memcpy(bytes, &xc, sizeof xc);
	memcpy(&alias, bytes, sizeof alias);
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = alias[j + 1];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The pointer goes through an integer. */
double int_alias(const double *x, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	unsigned long u = (unsigned long)xc;
	double *alias = (double *)(u + sizeof(double));
	xc[d] = 0.5;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = alias[j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

struct box {
	double *p;
	int n;
};

/* The buffer is reached through a struct field written before the loops. */
double struct_field(const double *x, struct box *b, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	b->p = xc;
	xc[d] = 0.5;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = b->p[j + 1];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	b->p = 0;
	return s;
}

/* The first loop writes the struct field the second loop's base is loaded
 * from (and the count): the second loop must use the new ones. */
double base_written(struct box *b, double *other, int d) {
	double *xc = malloc(d * sizeof *xc);
	double **slot = malloc(sizeof *slot);
	*slot = xc;
	for (int j = 0; j < d; j++) xc[j] = j, slot[0] = other;
	double s = 0;
	double *base = *slot;
	for (int j = 0; j < d; j++) s += base[j] * (j + 1);
	free(slot);
	free(xc);
	(void)b;
	return s;
}

/* The first loop writes the count the second loop reloads (q is np). */
double bound_written(int *np, int *q, const double *x) {
	double *xc = malloc(16 * sizeof *xc), *qx = malloc(16 * sizeof *qx);
	int n = *np;
	for (int j = 0; j < n; j++) xc[j] = x[j] * 3, q[j] = 2;
	int n2 = *np;
	for (int j = 0; j < n2; j++) qx[j] = xc[j] + 1;
	double s = 0;
	for (int j = 0; j < n2; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* Unsigned counters from 0 while i != n, zero-extended. */
double unsigned_ne(const double *x, unsigned n) {
	double *xc = malloc((n + 1) * sizeof *xc), *qx = malloc(n * sizeof *qx);
	xc[n] = 0.5;
	for (unsigned i = 0; i != n; i++) xc[i] = x[i] * 3;
	for (unsigned i = 0; i != n; i++) qx[i] = xc[i + 1];
	double s = 0;
	for (unsigned i = 0; i != n; i++) s += qx[i] * (i + 1);
	free(xc);
	free(qx);
	return s;
}

/* Unsigned char counters that wrap: from 250 while c != 4. */
double char_wrap(const double *x) {
	double *xc = malloc(256 * sizeof *xc), *qx = malloc(256 * sizeof *qx);
	for (int i = 0; i < 256; i++) xc[i] = qx[i] = 0;
	for (unsigned char c = 250; c != 4; c++) xc[c] = x[c % 7] * 3 + c;
	for (unsigned char c = 250; c != 4; c++) qx[c] = xc[(unsigned char)(c + 1)];
	double s = 0;
	for (int i = 0; i < 256; i++) s += qx[i] * (i + 1);
	free(xc);
	free(qx);
	return s;
}

/* Same element, but one loop indexes sign-extended, the other with the
 * counter as unsigned: different elements for a negative counter. */
double sext_zext(const double *x, int lo, int d) {
	double *xc = malloc(64 * sizeof *xc), *qx = malloc(64 * sizeof *qx);
	for (int i = 0; i < 64; i++) xc[i] = qx[i] = 0;
	double *mid = xc + 32;
	for (int j = lo; j < d; j++) mid[j] = x[j - lo] * 3;
	for (int j = lo; j < d; j++) qx[j - lo] = mid[(unsigned)j & 31];
	double s = 0;
	for (int i = 0; i < 64; i++) s += (qx[i] + xc[i]) * (i + 1);
	free(xc);
	free(qx);
	return s;
}

/* The first loop breaks out early. */
double early_exit(const double *x, int d) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j <= d; j++) xc[j] = -1;
	for (int j = 0; j < d; j++) {
		if (x[j] > 0.5) break;
		xc[j] = x[j] * 3;
	}
	for (int j = 0; j < d; j++) qx[j] = xc[j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* A user function claimed const that is not (it reads a global): the lie
 * is the user's; here it only reads, so fusion keeps its results. */
static double scale = 2;
__attribute__((const, noinline)) double cfun(double v) { return v * scale; }
double const_call(const double *x, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = cfun(x[j]);
	for (int j = 0; j < d; j++) qx[j] = xc[j] + 1;
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* The first loop calls exit() past the half (not willreturn): the second
 * loop must not have run. Only called with stop > d. */
__attribute__((noinline)) double stopper(double v, int j, int stop) {
	if (j == stop) exit(3);
	return v;
}
double exit_call(const double *x, int d, int stop) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = stopper(x[j], j, stop);
	for (int j = 0; j < d; j++) qx[j] = xc[j] + 1;
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* volatile and atomic accesses. */
double vol_atomic(const double *x, int d) {
	volatile double *xc = malloc((d + 1) * sizeof *xc);
	_Atomic int *cnt = malloc(d * sizeof *cnt);
	double *qx = malloc(d * sizeof *qx);
	xc[d] = 0.5;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3, atomic_init(&cnt[j], j);
	for (int j = 0; j < d; j++) qx[j] = xc[j + (j & 1)] + atomic_load(&cnt[(j + 1) % d]);
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free((void *)xc);
	free(cnt);
	free(qx);
	return s;
}

/* Two restrict parameters the caller makes overlap where nothing is
 * modified through them, plus a fresh buffer. */
double restrict_ro(const double *restrict a, const double *restrict b, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = a[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = xc[j] + b[j];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}

/* A fresh local array (alloca) that escapes to a callee only after the
 * loops, read in the second loop through a pointer loaded from a global
 * set before. */
double *L;
__attribute__((noinline)) void keep(double *p) { L = p; }
double alloca_escape(const double *x, int d) {
	double xc[17], qx[16];
	keep(xc);
	xc[d] = 0.5;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	double *alias = L;
	for (int j = 0; j < d; j++) qx[j] = alias[j + 1];
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	return s;
}

/* llir round trips: a fused pair in functions with IR llir must write back
 * as it was (long double, float and half constants, NaN payloads, negative
 * zero, __int128, vectors, complex numbers, inline asm, computed goto,
 * switch, varargs, atomics). */
typedef double v4 __attribute__((vector_size(32)));
double ok_constants(const double *x, int d, int k) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3.14159265358979323846L;
	for (int j = 0; j < d; j++) qx[j] = xc[j] * 0.1f + (float)j * 1e-30f;
	long double ld = 1.0L / 3 + (long double)k;
	__int128 big = ((__int128)0x123456789abcdefLL << 64) | 0xfedcba9876543210ULL;
	big += k;
	double nan = __builtin_nan("0x5");
	union {
		double d;
		unsigned long long u;
	} un = {nan};
	float h = 0.1f + k;
	double complex z = (1.5 + 2.5 * I) * (k + 0.5 * I);
	v4 v = {1, 2, 3, -0.0};
	v4 w = __builtin_shufflevector(v, v, 3, 2, 1, 0) * k;
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	s += (double)ld + (double)(big >> 60) + (double)(un.u & 0xff) + (double)h + creal(z) * cimag(z) + w[0] + w[1];
	s += 1 / w[0];
	free(xc);
	free(qx);
	return s;
}

double ok_control(const double *x, int d, int k) {
	static const void *labels[] = {&&l0, &&l1, &&l2};
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	int r;
	__asm__("lea 7(%1), %0" : "=r"(r) : "r"(k));
	for (int j = 0; j < d; j++) xc[j] = x[j] * r;
	for (int j = 0; j < d; j++) qx[j] = xc[j] - 1;
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	goto *labels[k % 3];
l0:
	s += 100;
l1:
	s += 10;
l2:
	switch (k) {
	case 0: s *= 2; break;
	case 3: s *= 3; break;
	case 7: s *= 5; break;
	case -1: s = 0; break;
	default: s += 0.5;
	}
	_Atomic long cnt = 0;
	atomic_fetch_add_explicit(&cnt, k, memory_order_relaxed);
	s += atomic_load(&cnt);
	char buf[64];
	snprintf(buf, sizeof buf, "%d|%s\t\"%c", k, "x\\y", 'q');
	s += strlen(buf) + buf[3];
	free(xc);
	free(qx);
	return s;
}

/* a setjmp before the pair, a longjmp after it; VLAs in an outer loop; a
 * chain of three, the third reading qx[j+1]; rows of a matrix, the second
 * loop reading the next row. */
static jmp_buf env;
__attribute__((noinline)) void jumper(int k) { if (k) longjmp(env, k); }
double sj(const double *x, int d, int k) {
	double *xc = malloc((d + 1) * sizeof *xc), *qx = malloc(d * sizeof *qx);
	volatile int round = 0;
	xc[d] = 0.5;
	if (setjmp(env)) round++;
	int r = round;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3 + r;
	for (int j = 0; j < d; j++) qx[j] = xc[j] + 1;
	if (round < 2) jumper(k);
	double s = 0;
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	free(xc);
	free(qx);
	return s;
}
double vla(const double *x, int d) {
	double s = 0;
	for (int r = 0; r < 3; r++) {
		double xc[d + r], qx[d];
		for (int j = 0; j < d; j++) xc[j] = x[j] * 3 + r;
		for (int j = 0; j < d; j++) qx[j] = xc[j] + 1;
		for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	}
	return s;
}
/* fused chain: the third loop reads qx[j+1] */
double chain(const double *x, int d) {
	double *xc = malloc(d * sizeof *xc), *qx = malloc((d + 1) * sizeof *qx), *z = malloc(d * sizeof *z);
	qx[d] = 7;
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = xc[j] + 1;
	for (int j = 0; j < d; j++) z[j] = qx[j + 1] * 2;
	double s = 0;
	for (int j = 0; j < d; j++) s += z[j] * (j + 1);
	free(xc); free(qx); free(z);
	return s;
}
/* in an outer loop, the second reads the row the first writes, next row */
double rows(const double *x, int d) {
	double *m = malloc(d * (d + 1) * sizeof *m), *o = malloc(d * d * sizeof *o);
	for (int k = 0; k < d * (d + 1); k++) m[k] = 0.25 * k;
	for (int i = 0; i < d; i++) {
		double *row = m + i * d, *next = m + (i + 1) * d, *out = o + i * d;
		for (int j = 0; j < d; j++) row[j] = x[j] * i;
		for (int j = 0; j < d; j++) out[j] = next[j] + row[j];
	}
	double s = 0;
	for (int k = 0; k < d * d; k++) s += o[k] * (k % 5 + 1);
	free(m); free(o);
	return s;
}
/* More for llir: an assume with an align bundle, branch weights, a loop
 * with access groups (assume_safety), annotations, prefetch, bit
 * intrinsics, a 128-bit multiply with overflow check. */
double ok_misc(const double *xin, int d, unsigned k) {
	const double *x = __builtin_assume_aligned(xin, 8);
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	for (int j = 0; j < d; j++) xc[j] = x[j] * 3;
	for (int j = 0; j < d; j++) qx[j] = xc[j] + 1;
	double s = 0;
#pragma clang loop vectorize(assume_safety)
	for (int j = 0; j < d; j++) s += qx[j] * (j + 1);
	__attribute__((annotate("gozyme-tag"))) int tag = (int)k;
	__builtin_prefetch(x + 1);
	if (__builtin_expect_with_probability(k > 3, 1, 0.9)) s += __builtin_popcount(k) + __builtin_clz(k | 1) + __builtin_bswap32(k) % 7;
	unsigned long long prod;
	if (__builtin_umulll_overflow(k * 0x100000001ULL, 0x7fffffffULL, &prod)) s += 1;
	s += (double)(prod % 1000) + tag;
	free(xc);
	free(qx);
	return s;
}

int main(int argc, char **argv) {
	(void)argv;
	enum { MAX = 16 };
	int d = argc + 6; /* 7, from the command line so that nothing folds */
	double x[MAX];
	struct box b = {0, 0};
	for (int i = 0; i < MAX; i++) x[i] = 0.3 * i - 0.8 + (i == 3) * 0.9;
	double other[MAX];
	for (int i = 0; i < MAX; i++) other[i] = 100 + i;
	printf("via_global %a\n", via_global(x, d));
	printf("reversed %a\n", reversed(x, d));
	printf("doubled %a\n", doubled(x, d));
	printf("second_pointer %a\n", second_pointer(x, d));
	printf("memcpy_alias %a\n", memcpy_alias(x, d));
	printf("int_alias %a\n", int_alias(x, d));
	printf("struct_field %a\n", struct_field(x, &b, d));
	printf("base_written %a\n", base_written(&b, other, d));
	int cnt[MAX] = {d};
	printf("bound_written %a\n", bound_written(cnt, cnt, x));
	printf("unsigned_ne %a\n", unsigned_ne(x, d));
	printf("char_wrap %a\n", char_wrap(x));
	printf("sext_zext %a\n", sext_zext(x, -3, d));
	printf("early_exit %a\n", early_exit(x, d));
	printf("const_call %a\n", const_call(x, d));
	printf("exit_call %a\n", exit_call(x, d, d + 5));
	printf("vol_atomic %a\n", vol_atomic(x, d));
	printf("restrict_ro %a\n", restrict_ro(x, x, d));
	printf("alloca_escape %a\n", alloca_escape(x, d));
	printf("ok_constants %a\n", ok_constants(x, d, argc + 2));
	printf("ok_control %a\n", ok_control(x, d, argc + 6));
	printf("ok_misc %a\n", ok_misc(x, d, argc + 11));
	printf("sj %a %a\n", sj(x, d, 0), sj(x, d, 1));
	printf("vla %a\n", vla(x, d));
	printf("chain %a\n", chain(x, d));
	printf("rows %a\n", rows(x, d));
	fflush(stdout);
	exit_call(x, d, 3);
	printf("not reached\n");
	return 0;
}
