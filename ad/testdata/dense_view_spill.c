// A dense view (__enzyme_post_sparse_todense) passed as an inactive
// argument to a gradient whose loop reads nine coordinates from pos + 9 i:
// the gradient's loop record caches the address pos + 9 i, so after the
// gradient is inlined where the view is made, a pointer derived from the
// view is stored into the record and loaded back in the reverse sweep.
#include <math.h>
#include <stdio.h>

extern void __enzyme_autodiff(void *, ...);
extern float *__enzyme_post_sparse_todense(void *, void *, ...);
int enzyme_const, enzyme_dup;

/* Coordinate off / 4 of the view: corner (off / 4) / 3 of the triangle list,
   its component (off / 4) % 3, gathered from the points. */
static float corner_load(unsigned long long off, const float *pts, const int *tri) {
	off /= sizeof(float);
	return pts[3 * tri[off / 3] + off % 3];
}
static void corner_store(float v, unsigned long long off, const float *pts, const int *tri) {}

static inline __attribute__((always_inline)) float tri_area(const float *__restrict__ u, const float *__restrict__ v,
							     const float *__restrict__ w) {
	float a[3], b[3], c[3];
	for (int k = 0; k < 3; k++) {
		a[k] = v[k] - u[k];
		b[k] = w[k] - u[k];
	}
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
	return 0.5 * sqrtf(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

/* Mass-lumped energy: sum over triangles of |x_t|^2 / 3 * area_t. */
static float energy(const float *__restrict__ pos, unsigned long n, const float *__restrict__ x) {
	float sum = 0;
	__builtin_assume(n != 0);
	for (unsigned long i = 0; i < n; i++) {
		const float *p = &pos[9 * i];
		float xi = x[3 * i], xj = x[3 * i + 1], xk = x[3 * i + 2];
		sum += (xi * xi + xj * xj + xk * xk) * (1.0 / 3.0) * tri_area(&p[0], &p[3], &p[6]);
	}
	return sum;
}

int main(void) {
	float pts[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 2, 0, 1};
	int tri[] = {0, 1, 2, 1, 3, 2, 4, 3, 0};
	enum { T = 3 };
	float x[3 * T], dx[3 * T] = {0};
	for (int i = 0; i < 3 * T; i++)
		x[i] = 0.5f + 0.25f * i;
	float *pos = __enzyme_post_sparse_todense((void *)corner_load, (void *)corner_store, pts, tri);
	__enzyme_autodiff((void *)energy, enzyme_const, pos, enzyme_const, (unsigned long)T, enzyme_dup, x, dx);
	double worst = 0;
	for (int t = 0; t < T; t++) {
		const float *u = &pts[3 * tri[3 * t]], *v = &pts[3 * tri[3 * t + 1]], *w = &pts[3 * tri[3 * t + 2]];
		double area = tri_area(u, v, w);
		for (int k = 0; k < 3; k++) {
			double want = 2 * x[3 * t + k] / 3.0 * area;
			double err = fabs(dx[3 * t + k] - want) / (fabs(want) + 1e-6);
			if (err > worst)
				worst = err;
		}
	}
	printf("%s %g\n", worst < 1e-5 ? "ok" : "wrong", worst);
	return 0;
}
