/* The program of TestRealloc (realloc_test.go), compiled after memoryPrelude. */
static int moved;
/* Grows a buffer with realloc while filling it from x; small blocks
 * allocated in between keep realloc from growing it in place. */
__attribute__((noinline)) double grow(double *x, int n) {
	int cap = 1, len = 0;
	double *buf = malloc(cap * sizeof *buf);
	void *pins[32];
	int npins = 0;
	for (int i = 0; i < n; i++) {
		if (len == cap) {
			cap *= 2;
			double *nb = realloc(buf, cap * sizeof *buf);
			moved |= nb != buf;
			buf = nb;
			pins[npins++] = malloc(16);
		}
		buf[len++] = sin(x[i]) * x[(i + 1) % n];
	}
	double s = 0;
	for (int i = 0; i < len; i++) s += buf[i] * buf[len - 1 - i];
	free(buf);
	for (int i = 0; i < npins; i++) free(pins[i]);
	return s;
}

/* realloc(NULL, n) allocates; shrinking drops the tail (its values no
 * longer matter); growing again leaves new, overwritten slots. */
__attribute__((noinline)) double shrink(double *x, int n) {
	double *a = realloc(NULL, n * sizeof *a);
	for (int i = 0; i < n; i++) a[i] = x[i] * x[i];
	a = realloc(a, 3 * sizeof *a);
	double s = a[0] + 2 * a[1] * a[2];
	a = realloc(a, 2 * n * sizeof *a);
	for (int i = 3; i < 2 * n; i++) a[i] = cos(x[i % n]) * a[i % 3];
	for (int i = 0; i < 2 * n; i++) s += a[i] * (i + 1);
	free(a);
	return s;
}

/* A table of pointers into x grows with realloc: the shadow table holds
 * the shadow pointers, which move with it (pointer bytes get no adjoint). */
__attribute__((noinline)) double rows(double *x, int n) {
	double **rows = NULL;
	for (int i = 0; i < n; i++) {
		rows = realloc(rows, (i + 1) * sizeof *rows);
		rows[i] = x + (n - 1 - i);
	}
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i && j < n - i; j++) s += sin(rows[i][j]) * rows[j][0];
	free(rows);
	return s;
}

int main(void) {
	enum { N = 9 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(grow);
	GRADCHECK(shrink);
	GRADCHECK(rows);
	if (!moved) { printf("FAIL realloc never moved the buffer\n"); return 1; }
	return failures != 0;
}
