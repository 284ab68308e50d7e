/* particleC is a particle system (forces from p[j] on p[i], then a
 * position update) and two variants that must keep their per-iteration
 * caches: one writing p[i].x inside the i loop (the p[j].x it loads
 * changes from one i to the next) and one whose inner loop starts at i (a
 * triangle: the same j iteration number reads another particle for each i);
 * and two hoisted otherwise: p[j] under an intermediate loop, and x[0]
 * loaded in every iteration of a loop and overwritten after it.
 * CHECK_PARTICLES compares each gradient with central differences and
 * prints the heap the gradient keeps after a call: its cache buffers, which
 * combined gradients retain (retain.go).
 * (particleC in hoist_test.go; compiled after memoryPrelude) */
#include <malloc.h>
typedef struct { double x, y, vx, vy; int kind; } Particle;

__attribute__((noinline)) double particles(Particle *p, int n) {
	for (int s = 0; s < 4; s++) {
		for (int i = 0; i < n; i++) {
			double fx = 0, fy = 0;
			for (int j = 0; j < n; j++) {
				if (i == j) continue;
				double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
				double r2 = dx * dx + dy * dy + 0.5;
				double f = (p[i].kind == p[j].kind ? 1.0 : -1.0) / (r2 * sqrt(r2));
				fx += f * dx;
				fy += f * dy;
			}
			p[i].vx += 0.01 * fx;
			p[i].vy += 0.01 * fy;
		}
		for (int i = 0; i < n; i++) { p[i].x += 0.1 * p[i].vx; p[i].y += 0.1 * p[i].vy; }
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].x * p[i].y;
	return e;
}

/* p[i].x is written inside the i loop: p[j].x differs between i iterations. */
__attribute__((noinline)) double overlapping(Particle *p, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < n; j++) f += sin(p[j].x - p[i].y) * p[j].vy;
			p[i].x += 0.1 * f;
		}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].x * p[i].x + p[i].y;
	return e;
}

/* The inner loop starts at i: its k-th iteration reads p[i + k]. */
__attribute__((noinline)) double triangular(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = i; j < n; j++) f += cos(p[j].x * p[i].y);
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x;
	return e;
}

static size_t heap(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }

/* CHECK_PARTICLES(f, n): the gradient of f against central differences,
 * and the heap it keeps (its retained caches), printed as "tape f BYTES". */
#define CHECK_PARTICLES(f, n) do { \
		Particle w[64], d[64]; \
		init(n); \
		memcpy(w, P, sizeof P); \
		memset(d, 0, sizeof d); \
		size_t before = heap(); \
		__enzyme_autodiff((void *)f, enzyme_dup, w, d, enzyme_const, n); \
		printf("tape %s %zu\\n", #f, heap() - before); \
		fdparticles(#f, f, n, d); \
	} while (0)
/* An intermediate loop: p[j] is the same in every i iteration for the
 * same (k, j). */
__attribute__((noinline)) double blocked(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int k = 0; k < 2; k++)
				for (int j = 0; j < n; j++) f += sin(p[j].x * (k + 1) - p[i].y) * p[j].y;
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) { p[i].x += 0.1 * p[i].vx; p[i].y -= 0.05 * p[i].vx; }
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* x[0] is the same in every iteration of the loop and overwritten after it:
 * one cache for the whole loop. */
__attribute__((noinline)) double anchored(double *x, int n) {
	double s = 0;
	for (int j = 1; j < n; j++) s += sin(x[0] * x[j]);
	x[0] = s * x[1];
	for (int j = 1; j < n; j++) x[j] = cos(x[j] + x[0]);
	return x[0] + x[n - 1];
}
static double anchored_copy(double *x, int n) { double y[16]; memcpy(y, x, n * sizeof *x); return anchored(y, n); }

/* The same functions as callees: split into an augmented forward and a
 * reverse that share a tape. */
#define CALLEE(f) __attribute__((noinline)) double f##_callee(Particle *p, int n) { return 2 * f(p, n); }
CALLEE(particles)
CALLEE(overlapping)
CALLEE(triangular)
CALLEE(blocked)

static Particle P[64];
static void init(int n) {
	for (int i = 0; i < n; i++) P[i] = (Particle){cos(i * 1.7) * 3, sin(i * 2.3) * 3, 0.1 * sin(i), 0.2 * cos(i), i % 2};
}
static void fdparticles(const char *name, double (*f)(Particle *, int), int n, Particle *d) {
	Particle w[64];
	for (int i = 0; i < n; i++) {
		double *fld[4] = {&P[i].x, &P[i].y, &P[i].vx, &P[i].vy}, *dfld[4] = {&d[i].x, &d[i].y, &d[i].vx, &d[i].vy};
		for (int k = 0; k < 4; k++) {
			double save = *fld[k], h = 1e-6;
			*fld[k] = save + h; memcpy(w, P, sizeof P); double fp = f(w, n);
			*fld[k] = save - h; memcpy(w, P, sizeof P); double fm = f(w, n);
			*fld[k] = save;
			char what[64]; snprintf(what, sizeof what, "%s p[%d].%d", name, i, k);
			check(what, *dfld[k], (fp - fm) / (2 * h), 1e-5);
		}
	}
}
