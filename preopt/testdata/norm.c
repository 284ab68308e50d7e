/* The seed's example: mag lives in another translation unit (mag.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double mag(const double *x, int n);
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

void norm(double *restrict out, const double *restrict in, int n) {
	for (int i = 0; i < n; i++) out[i] = in[i] / mag(in, n);
}

/* Prints the largest relative error of the gradient against the analytic
 * d_in = d_out / r - in (in . d_out) / r^3. */
int main(void) {
	enum { N = 37 };
	double in[N], out[N], din[N] = {0}, dout[N], want[N];
	for (int i = 0; i < N; i++) { in[i] = sin(1.3 * i) + 0.2; dout[i] = cos(0.7 * i); }
	double r = 0, dot = 0;
	for (int i = 0; i < N; i++) { r += in[i] * in[i]; dot += in[i] * dout[i]; }
	r = sqrt(r);
	for (int i = 0; i < N; i++) want[i] = dout[i] / r - in[i] * dot / (r * r * r);
	__enzyme_autodiff((void *)norm, enzyme_dup, out, dout, enzyme_dup, in, din, enzyme_const, N);
	double err = 0;
	for (int i = 0; i < N; i++) err = fmax(err, fabs(din[i] - want[i]) / fmax(1e-300, fabs(want[i])));
	printf("%.3g\n", err);
	return 0;
}
