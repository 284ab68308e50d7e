/* Integers whose bits the type analysis cannot tell at first, moved from
 * memory with a shadow into memory with a shadow (TestUnknownBitsMove):
 *   - FLOAT_BITS: a double's bits kept in a long field and copied as a
 *     long into another record: nothing in the program says they are a
 *     float, the copy would leave the derivative behind, and the link
 *     must stop;
 *   - otherwise the same copy of a size (used as a loop bound in the
 *     callee) and of a pointer kept in a long (turned back into a double*
 *     and dereferenced): both differentiate, checked against central
 *     finite differences. */
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#ifdef FLOAT_BITS
struct cell { long bits; };
__attribute__((noinline)) void move(struct cell *dst, const struct cell *src) { dst->bits = src->bits; }
void copy_bits(struct cell *dst, struct cell *src) { move(dst, src); }
int main(void) {
	double x = 3.0, dx = 0.0, y = 0.0, dy = 1.0;
	struct cell s, ds, d, dd;
	memcpy(&s.bits, &x, 8);
	memcpy(&ds.bits, &dx, 8);
	memcpy(&d.bits, &y, 8);
	memcpy(&dd.bits, &dy, 8);
	__enzyme_autodiff((void *)copy_bits, enzyme_dup, &d, &dd, enzyme_dup, &s, &ds);
	memcpy(&dx, &ds.bits, 8);
	printf("dx %g (want 1)\n", dx);
	return 0;
}
#else
struct vec { long n; long data; double scale; };
/* A new record built from the fields of the old one: the size and the
 * pointer (as an integer) copied by value. */
__attribute__((noinline)) void rebuild(struct vec *dst, const struct vec *src) {
	dst->n = src->n;
	dst->data = src->data;
	dst->scale = src->scale;
}
__attribute__((noinline)) double norm2(const struct vec *v) {
	const double *p = (const double *)(intptr_t)v->data;
	double s = 0;
	for (long i = 0; i < v->n; i++)
		s += p[i] * p[i] * v->scale;
	return s;
}
double energy(struct vec *src, struct vec *tmp) {
	rebuild(tmp, src);
	return sin(norm2(tmp));
}
static double energy_at(double *xs, int n, double scale) {
	struct vec v = {n, (long)(intptr_t)xs, scale}, t;
	return energy(&v, &t);
}
int main(void) {
	enum { N = 5 };
	double xs[N] = {0.3, -0.2, 0.5, 0.1, -0.4}, dxs[N] = {0};
	double scale = 0.7;
	struct vec v = {N, (long)(intptr_t)xs, scale}, dv = {N, (long)(intptr_t)dxs, 0};
	struct vec t = {0}, dt = {0};
	__enzyme_autodiff((void *)energy, enzyme_dup, &v, &dv, enzyme_dup, &t, &dt);
	int bad = 0;
	for (int i = 0; i < N; i++) {
		double h = 1e-6, save = xs[i];
		xs[i] = save + h;
		double up = energy_at(xs, N, scale);
		xs[i] = save - h;
		double down = energy_at(xs, N, scale);
		xs[i] = save;
		double fd = (up - down) / (2 * h);
		if (fabs(dxs[i] - fd) > 1e-6 * (1 + fabs(fd))) {
			printf("FAIL d/dx[%d]: %g, want %g\n", i, dxs[i], fd);
			bad++;
		}
	}
	double h = 1e-6;
	double fd = (energy_at(xs, N, scale + h) - energy_at(xs, N, scale - h)) / (2 * h);
	if (fabs(dv.scale - fd) > 1e-6 * (1 + fabs(fd))) {
		printf("FAIL d/dscale: %g, want %g\n", dv.scale, fd);
		bad++;
	}
	printf("failures %d\n", bad);
	return bad != 0;
}
#endif
