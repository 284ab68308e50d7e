/* The program of TestTapeVectorAlignment (tapealign_test.go), compiled after
 * checkPrelude: a 4x4 matrix product in a function the gradient calls (a
 * split pair), whose tape caches <4 x double> values at -O3 with AVX (and
 * <4 x double> of the vector extension at every level). The tape comes from
 * memory aligned to 16 bytes. */
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
typedef double mat4[4][4];
typedef double v4 __attribute__((vector_size(32)));

__attribute__((noinline)) void mul(mat4 M, mat4 const a, mat4 const b) {
	mat4 t;
	for (int c = 0; c < 4; ++c)
		for (int r = 0; r < 4; ++r) {
			t[c][r] = 0;
			for (int k = 0; k < 4; ++k)
				t[c][r] += a[k][r] * b[c][k];
		}
	for (int c = 0; c < 4; ++c)
		for (int r = 0; r < 4; ++r)
			M[c][r] = t[c][r];
}

/* v*w*v, lane by lane, through memory the caller overwrites. */
__attribute__((noinline)) void vmul(v4 *out, const v4 *v, const v4 *w) {
	v4 a = *v, b = *w;
	*out = a * b * a;
}

double loss(const double *x) {
	mat4 A, B, C;
	for (int i = 0; i < 16; i++) {
		A[i / 4][i % 4] = x[i] * x[i];
		B[i / 4][i % 4] = sin(x[i]);
	}
	mul(C, A, B);
	mul(C, C, A);
	mul(C, B, C);
	v4 p = {C[0][0], C[1][1], C[2][2], C[3][3]}, q = {x[0], x[5], x[10], x[15]};
	vmul(&p, &p, &q);
	vmul(&p, &q, &p);
	double s = p[0] + p[1] * 2 + p[2] * 3 + p[3] * 4;
	for (int i = 0; i < 16; i++)
		s += C[i / 4][i % 4] * (i + 1);
	return s;
}

int main(void) {
	double x[16], g[16] = {0};
	for (int i = 0; i < 16; i++)
		x[i] = 0.1 + 0.05 * i;
	__enzyme_autodiff((void *)loss, enzyme_dup, x, g);
	for (int i = 0; i < 16; i++) {
		double h = 1e-6, xp[16], xm[16];
		for (int j = 0; j < 16; j++)
			xp[j] = xm[j] = x[j];
		xp[i] += h;
		xm[i] -= h;
		char what[32];
		sprintf(what, "dloss/dx[%d]", i);
		check(what, g[i], (loss(xp) - loss(xm)) / (2 * h), 1e-6);
	}
	return failures != 0;
}
