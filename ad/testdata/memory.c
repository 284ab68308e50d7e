/* The program of TestMemory (memory_test.go), compiled after memoryPrelude. */
/* Arrays through pointers. */
__attribute__((noinline)) double dot(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[(i * 7 + 3) % n];
	return s;
}

/* In-place updates, repeated: the overwritten values must be cached. */
__attribute__((noinline)) double inplace(double *x, int n) {
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < n; i++) x[i] = sin(x[i]) * x[i] + 0.1 * x[(i + 1) % n];
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i];
	return s;
}
static double inplace_copy(double *x, int n) { double y[16]; memcpy(y, x, n * sizeof *x); return inplace(y, n); }

/* A heap temporary, a matrix-vector product and a call with pointers. */
__attribute__((noinline)) void matvec(const double *A, const double *v, double *out, int n) {
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++) s += A[i * n + j] * v[j];
		out[i] = s;
	}
}
__attribute__((noinline)) double heapy(double *x, int n) {
	double *A = malloc(n * n * sizeof *A);
	double *y = malloc(n * sizeof *y);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) A[i * n + j] = cos(x[i] - x[j]) + (i == j);
	matvec(A, x, y, n);
	double s = 0;
	for (int i = 0; i < n; i++) s += y[i] * y[i];
	free(A);
	free(y);
	return s;
}

/* memcpy of doubles and a local array. */
__attribute__((noinline)) double copies(double *x, int n) {
	double tmp[16];
	memcpy(tmp, x, n * sizeof(double));
	double s = 0;
	for (int i = 0; i < n; i++) s += tmp[i] * tmp[n - 1 - i] * x[i];
	return s;
}

/* An output buffer: void f(out, in); seeds come from the output's shadow. */
__attribute__((noinline)) void normalize(double *out, const double *in, int n) {
	double r = 0;
	for (int i = 0; i < n; i++) r += in[i] * in[i];
	r = sqrt(r);
	for (int i = 0; i < n; i++) out[i] = in[i] / r;
}

int main(void) {
	enum { N = 9 };
	double x[N], dx[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(dot);
	GRADCHECK(inplace_copy);
	GRADCHECK(heapy);
	GRADCHECK(copies);
	/* Accumulation: derivatives are added into the shadow. */
	for (int i = 0; i < N; i++) dx[i] = 1.0;
	__enzyme_autodiff((void *)dot, enzyme_dup, x, dx, enzyme_const, N);
	double once[N] = {0};
	__enzyme_autodiff((void *)dot, enzyme_dup, x, once, enzyme_const, N);
	for (int i = 0; i < N; i++) CHECK("accumulates", dx[i], 1.0 + once[i]);

	/* Output buffer: d_in = d_out/r - in (in . d_out)/r^3. */
	double out[N], dout[N], din[N] = {0}, r = 0, dotp = 0;
	for (int i = 0; i < N; i++) { dout[i] = 0.1 * (i + 1); r += x[i] * x[i]; dotp += x[i] * dout[i]; }
	r = sqrt(r);
	double seeds[N];
	memcpy(seeds, dout, sizeof dout);
	__enzyme_autodiff((void *)normalize, enzyme_dup, out, dout, enzyme_dup, x, din, enzyme_const, N);
	for (int i = 0; i < N; i++) {
		CHECK("normalize", din[i], seeds[i] / r - x[i] * dotp / (r * r * r));
		CHECK("seed consumed", dout[i], 0.0);
		CHECK("primal written", out[i], x[i] / r);
	}
	return failures != 0;
}
