// Tapes of augmented forward / reverse pairs called from combined gradients
// come from a per-thread stack (tapestack.go): a recursive function with a
// loop whose body calls it (determinant by minors, several depths, tapes
// of megabytes over growing chunks), calls inside loops three deep, records
// larger than a chunk, a recursion whose record buffers grow after its
// calls' tapes are on the stack, gradients on two threads at once, and a
// pair the user splits (__enzyme_augmentfwd / __enzyme_reverse, two tapes
// reversed out of order around combined gradients), which keeps malloc.
// Every gradient is checked against central differences.
#include <math.h>
#include <pthread.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

static int fails;
static void check(const char *what, int i, double got, double want) {
	if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) {
		printf("FAIL %s[%d]: got %.15g, want %.15g\n", what, i, got, want);
		fails++;
	}
}

// det_minor is cmpad's det_by_minor: rows and columns still in the minor
// are linked lists that the recursion edits and restores.
__attribute__((noinline)) double det_minor(const double *a, long m, long n, long *r, long *c) {
	long row = r[m];
	if (n == 1) return a[row * m + c[m]];
	r[m] = r[row];
	double det = 0;
	int plus = 1;
	long prev = m;
	for (long k = 0, j = c[m]; k < n; k++, prev = j, j = c[j]) {
		c[prev] = c[j];
		double minor = det_minor(a, m, n - 1, r, c);
		c[prev] = j;
		double term = a[row * m + j] * minor;
		det = plus ? det + term : det - term;
		plus = !plus;
	}
	r[m] = row;
	return det;
}

double det(const double *a, long m) {
	long r[9], c[9];
	for (long i = 0; i < m; i++) r[i] = c[i] = i + 1;
	r[m] = c[m] = 0;
	return det_minor(a, m, m, r, c);
}

// Calls inside loops, three deep; each level caches values of its loop.
__attribute__((noinline)) static double leaf(const double *x, int n, double s) {
	double p = 1;
	for (int i = 0; i < n; i++) p *= sin(x[i] + s);
	return p;
}

__attribute__((noinline)) static double mid(const double *x, int n, int k) {
	double t = 0;
	for (int j = 0; j < k; j++) t += cos(leaf(x, n, 0.1 * j)) * x[j % n];
	return t;
}

double nest(const double *x, long n) {
	double u = 0;
	for (int i = 0; i < 3; i++) u += exp(0.1 * mid(x, (int)n, i + 2));
	return u;
}

// tri's inner loop runs longer every outer iteration: its records grow
// while the tapes of the calls it made are above them on the stack.
__attribute__((noinline)) static double tri(const double *x, int n) {
	if (n == 0) return x[0];
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k <= i; k++) s += sin(x[k] * x[i] + 0.1 * tri(x, n - 1));
	return s;
}

double trisum(const double *x, long n) { return tri(x, (int)n); }

// chain's pair is the user's: its tapes, and those of the calls inside
// it, stay on the heap.
__attribute__((noinline)) static double chain(const double *x, int n) {
	if (n == 0) return x[0];
	double s = 0;
	for (int i = 0; i < n; i++) s += sin(x[i] * chain(x, n - 1));
	return s;
}

double user(const double *x, long n) { return chain(x, (int)n) * cos(x[1]); }

// big's records (megabytes) take chunks of their own, one after another.
__attribute__((noinline)) static double big(const double *x, long len) {
	double s = 0;
	for (long i = 0; i < len; i++) s += sin(x[i % 4] * (1 + 1e-6 * i));
	return s;
}

double bigsum(const double *x, long n) {
	double t = 0;
	for (int k = 0; k < 3; k++) t += cos(1e-5 * big(x, n * (k + 1)));
	return t;
}

typedef double (*fn)(const double *, long);

static void fd(fn f, double *x, long n, long len, double *g) {
	for (long i = 0; i < len; i++) {
		double h = 1e-5, old = x[i];
		x[i] = old + h;
		double up = f(x, n);
		x[i] = old - h;
		double down = f(x, n);
		x[i] = old;
		g[i] = (up - down) / (2 * h);
	}
}

// grad and checkGrad are macros: __enzyme_autodiff needs f itself.
#define grad(f, x, n, g, len)                                                                  \
	do {                                                                                   \
		for (long i_ = 0; i_ < (len); i_++) (g)[i_] = 0;                               \
		__enzyme_autodiff((void *)(f), enzyme_dup, (x), (g), enzyme_const, (long)(n)); \
	} while (0)

#define checkGrad(what, f, x, n, len)                                                          \
	do {                                                                                   \
		double g_[64], want_[64];                                                      \
		fd((f), (x), (n), (len), want_);                                               \
		grad((f), (x), (n), g_, (len));                                                \
		for (long i_ = 0; i_ < (len); i_++) check((what), (int)i_, g_[i_], want_[i_]); \
	} while (0)

static double A[36], B[64];

static void *worker(void *arg) {
	double *g = arg, a[36];
	for (int i = 0; i < 36; i++) a[i] = A[i];
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 36; i++) g[i] = 0;
		__enzyme_autodiff((void *)det, enzyme_dup, a, g, enzyme_const, 6L);
	}
	return NULL;
}

int main(void) {
	for (int i = 0; i < 36; i++) A[i] = sin(1.3 * i + 0.2) + (i % 7 == 0 ? 2 : 0);
	for (long m = 1; m <= 5; m++) {
		char what[16];
		snprintf(what, sizeof what, "det%ld", m);
		checkGrad(what, det, A, m, m * m);
	}
	double x[6] = {0.3, -0.7, 1.1, 0.5, -0.2, 0.9};
	checkGrad("nest", nest, x, 4, 4);
	checkGrad("tri", trisum, x, 3, 4);
	checkGrad("user", user, x, 3, 4);
	// Tapes of megabytes (det at m = 8: the stack grows over chunks of 1,
	// 2 and 4 MiB, the larger ones 2 MiB-aligned, advised as huge pages);
	// the next gradients take the spare, before and after bigsum's chunks
	// made for single blocks.
	for (int i = 0; i < 64; i++) B[i] = cos(0.7 * i + 0.1) + (i % 9 == 0 ? 1.5 : 0);
	for (int round = 0; round < 2; round++) checkGrad("det8", det, B, 8, 64);
	checkGrad("bigsum", bigsum, x, 100000, 4);
	checkGrad("det8 again", det, B, 8, 64);

	// Two threads at once, each on its own stack.
	double g1[36], g2[36], want[36];
	pthread_t t1, t2;
	pthread_create(&t1, NULL, worker, g1);
	pthread_create(&t2, NULL, worker, g2);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	grad(det, A, 6, want, 36);
	for (int i = 0; i < 36; i++) {
		check("thread1", i, g1[i], want[i]);
		check("thread2", i, g2[i], want[i]);
	}

	// The user's tapes, reversed out of order around combined gradients.
	double y[6] = {0.4, 0.8, -0.3, 0.6, 0.1, -0.5}, wx[4], wy[4], dx[4] = {0}, dy[4] = {0}, g[36];
	fd(user, x, 3, 4, wx);
	fd(user, y, 3, 4, wy);
	void *tx = __enzyme_augmentfwd((void *)user, enzyme_dup, x, dx, enzyme_const, 3L);
	grad(det, A, 5, g, 25);
	void *ty = __enzyme_augmentfwd((void *)user, enzyme_dup, y, dy, enzyme_const, 3L);
	grad(nest, x, 4, g, 4);
	__enzyme_reverse((void *)user, enzyme_dup, x, dx, enzyme_const, 3L, 1.0, tx);
	grad(trisum, y, 3, g, 4);
	__enzyme_reverse((void *)user, enzyme_dup, y, dy, enzyme_const, 3L, 1.0, ty);
	for (int i = 0; i < 4; i++) {
		check("split x", i, dx[i], wx[i]);
		check("split y", i, dy[i], wy[i]);
	}
	printf(fails ? "FAILED\n" : "OK\n");
	return fails != 0;
}
