#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

int main(void) {
	enum { N = 6 };
	double w[N], dw[N] = {0};
	int failures = 0;
	for (int i = 0; i < N; i++) w[i] = 0.3 - 0.11 * i;
	__enzyme_autodiff((void *)loss, enzyme_dup, w, dw, enzyme_const, N);
	for (int i = 0; i < N; i++) {
		double h = 1e-6, save = w[i];
		w[i] = save + h; double fp = loss(w, N);
		w[i] = save - h; double fm = loss(w, N);
		w[i] = save;
		double fd = (fp - fm) / (2 * h);
		printf("loss %d %.17g %.17g\n", i, dw[i], fd);
		if (fabs(dw[i] - fd) > 1e-6 * fmax(1, fabs(fd))) failures++;
	}
	/* norm: d_in = d_out/r - in (in . d_out)/r^3 */
	double in[N], out[N], dout[N], din[N] = {0}, r = 0, dot = 0;
	for (int i = 0; i < N; i++) { in[i] = 1.0 + 0.5 * i; dout[i] = 0.1 * (N - i); }
	for (int i = 0; i < N; i++) { r += in[i] * in[i]; dot += in[i] * dout[i]; }
	r = sqrt(r);
	double seed[N];
	memcpy(seed, dout, sizeof seed);
	__enzyme_autodiff((void *)norm, enzyme_dup, out, dout, enzyme_dup, in, din, enzyme_const, N);
	for (int i = 0; i < N; i++) {
		double want = seed[i] / r - in[i] * dot / (r * r * r);
		printf("norm %d %.17g %.17g\n", i, din[i], want);
		if (fabs(din[i] - want) > 1e-12 * fmax(1, fabs(want))) failures++;
	}
	/* Roots in two objects (this one and loss/loss.o) and an archive member. */
	double dw0 = loss_dw0(w, N);
	printf("loss_dw0 %.17g %.17g\n", dw0, dw[0]);
	if (fabs(dw0 - dw[0]) > 1e-12 * fmax(1, fabs(dw[0]))) failures++;
	double lg = lib_grad(0.7), want = 1.7 * exp(0.7);
	printf("lib_grad %.17g %.17g\n", lg, want);
	if (fabs(lg - want) > 1e-12 * want) failures++;
	printf("failures %d\n", failures);
	return failures != 0;
}
