/* The program of TestPackedFloatPairs (retype_packed_test.go), compiled
 * after checkPrelude: structs of two floats copied whole, which clang and
 * the optimizer move as an i64 (a load and a store, and a trunc or an
 * lshr and trunc taking one float back out), in reverse mode against the
 * analytic gradient. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct { float r, i; } cpx;

/* A strided gather: out[k] = in[k * stride]. */
__attribute__((noinline)) void gather(cpx *out, const cpx *in, int n, int stride) {
	for (int k = 0; k < n; k++)
		out[k] = in[k * stride];
}

/* kiss_fft's generic butterfly, reduced: a scratch copy of the inputs,
 * then every output starts from scratch[0] and adds the others scaled. */
__attribute__((noinline)) void mix(cpx *f, int p, const float *w) {
	cpx scratch[8];
	for (int q = 0; q < p; q++)
		scratch[q] = f[q];
	for (int k = 0; k < p; k++) {
		f[k] = scratch[0];
		for (int q = 1; q < p; q++) {
			f[k].r += scratch[q].r * w[(k * q) % p] - scratch[q].i * w[(k * q + 1) % p];
			f[k].i += scratch[q].i * w[(k * q) % p] + scratch[q].r * w[(k * q + 1) % p];
		}
	}
}

double loss(const float *x, int n) {
	cpx out[16];
	gather(out, (const cpx *)x, n / 2, 2);
	double s = 0;
	for (int k = 0; k < n / 2; k++)
		s += out[k].r * out[k].i * (k + 1) + out[k].r;
	return s;
}

static const float wts[5] = {0.5f, -0.25f, 0.75f, 0.125f, -0.5f};

double loss_mix(const float *x, int p) {
	cpx f[8];
	for (int q = 0; q < p; q++) {
		f[q].r = x[2 * q];
		f[q].i = x[2 * q + 1];
	}
	mix(f, p, wts);
	double s = 0;
	for (int k = 0; k < p; k++)
		s += (k + 1) * f[k].r + (k + 2) * f[k].i * f[k].i;
	return s;
}

int main(void) {
	int n = 16;
	float x[32], g[32] = {0};
	for (int i = 0; i < 2 * n; i++)
		x[i] = sinf(0.3f * i + 0.1f);
	__enzyme_autodiff((void *)loss, enzyme_dup, x, g, enzyme_const, n);
	for (int i = 0; i < 2 * n; i++) {
		/* out[k] = in[2k] = (x[4k], x[4k+1]) */
		double want = 0;
		if (i % 4 == 0 && i / 4 < n / 2)
			want = x[i + 1] * (i / 4 + 1) + 1;
		if (i % 4 == 1 && i / 4 < n / 2)
			want = x[i - 1] * (i / 4 + 1);
		char what[32];
		sprintf(what, "gather dx[%d]", i);
		check(what, g[i], want, 1e-5);
	}
	/* mix is linear: f = M x; the loss's gradient is M^T dL/df. */
	int p = 5;
	float gm[10] = {0};
	__enzyme_autodiff((void *)loss_mix, enzyme_dup, x, gm, enzyme_const, p);
	for (int i = 0; i < 2 * p; i++) {
		float xp[10], xm[10];
		for (int j = 0; j < 2 * p; j++)
			xp[j] = xm[j] = x[j];
		double h = 1e-2;
		xp[i] += h;
		xm[i] -= h;
		/* quadratic in x: the central difference is exact up to rounding */
		double fd = (loss_mix(xp, p) - loss_mix(xm, p)) / (2 * h);
		char what[32];
		sprintf(what, "mix dx[%d]", i);
		check(what, gm[i], fd, 1e-3);
	}
	return failures != 0;
}
