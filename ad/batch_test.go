package ad

import "testing"

func TestBatchForwardMode(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + `
#include <complex.h>
extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
typedef struct { double d[4]; } vec4;
typedef struct { double d0, d1; } vec2;
double __enzyme_fwddiff(void *, ...);
vec4 __enzyme_fwddiff4(void *, ...);
vec2 __enzyme_fwddiff2(void *, ...);
void __enzyme_fwddiff_void(void *, ...);

` + forwardKernels(t) + `
/* An aggregate result: each lane's tangent is a complex number. */
__attribute__((noinline)) double _Complex cexp_scaled(double x, double y) {
	double _Complex z;
	__real__ z = (x + 2 * y) * cos(x * y);
	__imag__ z = (x + 2 * y) * sin(x * y);
	return z;
}
typedef struct { double _Complex d[3]; } cvec3;
cvec3 __enzyme_fwddiff_c3(void *, ...);

int main(void) {
	double x = 0.7, y = 1.3, h = 1e-6;
	double dx[4] = {1, 0, 0.3, -2}, dy[4] = {0, 1, -1.1, 0.5};
	/* Four directions in one sweep, equal to four single calls. */
	sweeps = 0;
	vec4 b = __enzyme_fwddiff4((void *)scalar, enzyme_width, 4, x, dx[0], dx[1], dx[2], dx[3], y, dy[0], dy[1], dy[2], dy[3]);
	check("scalar: one sweep for four tangents", sweeps, 1, 0);
	for (int k = 0; k < 4; k++) {
		char what[64];
		snprintf(what, sizeof what, "scalar lane %d", k);
		check(what, b.d[k], __enzyme_fwddiff((void *)scalar, x, dx[k], y, dy[k]), 1e-15);
		double fd = (scalar(x + dx[k] * h, y + dy[k] * h) - scalar(x - dx[k] * h, y - dy[k] * h)) / (2 * h);
		check(what, b.d[k], fd, 1e-6);
	}
	/* Width 2, returned in registers; calls, loops and recursion. */
	int ns[] = {0, 1, 6};
	for (int k = 0; k < 3; k++) {
		int n = ns[k];
		vec2 l = __enzyme_fwddiff2((void *)looped, enzyme_width, 2, x, 1.0, -0.5, enzyme_const, n);
		check("looped lane 0", l.d0, __enzyme_fwddiff((void *)looped, x, 1.0, enzyme_const, n), 1e-15);
		check("looped lane 1", l.d1, (looped(x - 0.5 * h, n) - looped(x + 0.5 * h, n)) / (2 * h), 1e-6);
		vec4 r = __enzyme_fwddiff4((void *)rec, enzyme_width, 4, x, 1.0, 2.0, 3.0, 4.0, enzyme_const, n);
		for (int i = 0; i < 4; i++) check("rec lane", r.d[i], (i + 1) * __enzyme_fwddiff((void *)rec, x, 1.0, enzyme_const, n), 1e-14);
	}
	/* Four Jacobian-vector products through memory and the heap. */
	enum { N = 7 };
	double in[N], v[4][N], out[N], dout[4][N], single[N], p[N], m[N], fp[N], fm[N];
	for (int i = 0; i < N; i++) {
		in[i] = 0.2 + 0.1 * i;
		for (int k = 0; k < 4; k++) v[k][i] = sin(1.0 + i + 3.0 * k);
	}
	__enzyme_fwddiff_void((void *)map, enzyme_width, 4, enzyme_dup, out, dout[0], dout[1], dout[2], dout[3],
		enzyme_dup, in, v[0], v[1], v[2], v[3], enzyme_const, N);
	for (int k = 0; k < 4; k++) {
		__enzyme_fwddiff_void((void *)map, enzyme_dup, out, single, enzyme_dup, in, v[k], enzyme_const, N);
		for (int i = 0; i < N; i++) { p[i] = in[i] + h * v[k][i]; m[i] = in[i] - h * v[k][i]; }
		map(fp, p, N);
		map(fm, m, N);
		for (int i = 0; i < N; i++) {
			check("jvp lane = single call", dout[k][i], single[i], 1e-15);
			check("jvp lane", dout[k][i], (fp[i] - fm[i]) / (2 * h), 1e-6);
		}
	}
	/* The same, every lane's shadow in one buffer (enzyme_dupv, byte offset between lanes). */
	double dall[4][N];
	__enzyme_fwddiff_void((void *)map, enzyme_width, 4, enzyme_dupv, sizeof dall[0], out, dall,
		enzyme_dupnoneedv, sizeof v[0], in, v, enzyme_const, N);
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < N; i++) check("jvp lane, enzyme_dupv", dall[k][i], dout[k][i], 1e-15);
	/* Coefficient tangents of a polynomial, four at once. */
	double c[4] = {1, -2, 0.5, 0.25}, dc[4][4];
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 4; i++) dc[k][i] = i == k;
	vec4 pc = __enzyme_fwddiff4((void *)poly, enzyme_width, 4, enzyme_dup, c, dc[0], dc[1], dc[2], dc[3], enzyme_const, 4, x, 0.0, 0.0, 0.0, 0.0);
	for (int k = 0; k < 4; k++) check("poly coefficient", pc.d[k], pow(x, k), 1e-14);
	/* Three lanes of a complex result, each against central differences. */
	cvec3 cz = __enzyme_fwddiff_c3((void *)cexp_scaled, enzyme_width, 3, x, 1.0, 0.0, 0.5, y, 0.0, 1.0, -2.0);
	double cdx[3] = {1, 0, 0.5}, cdy[3] = {0, 1, -2};
	for (int k = 0; k < 3; k++) {
		double _Complex fd = (cexp_scaled(x + cdx[k] * h, y + cdy[k] * h) - cexp_scaled(x - cdx[k] * h, y - cdy[k] * h)) / (2 * h);
		check("complex lane re", creal(cz.d[k]), creal(fd), 1e-6);
		check("complex lane im", cimag(cz.d[k]), cimag(fd), 1e-6);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
