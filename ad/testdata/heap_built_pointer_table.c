/* The program of TestHeapBuiltPointerTable (memory_test.go), compiled after memoryPrelude. */
__attribute__((noinline)) double table(double *x, int n) {
	double **rows = malloc(n * sizeof *rows);
	for (int i = 0; i < n; i++) {
		rows[i] = malloc(3 * sizeof(double));
		rows[i][0] = x[i] * x[i];
		rows[i][1] = sin(x[i]);
		rows[i][2] = x[(i + 1) % n];
	}
	double s = 0;
	for (int i = 0; i < n; i++) {
		s += rows[i][0] * rows[i][1] + rows[i][2] * rows[(i + 2) % n][0];
	}
	for (int i = 0; i < n; i++) free(rows[i]);
	free(rows);
	return s;
}
int main(void) {
	enum { N = 7 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.4 + 0.21 * i - 0.03 * i * i;
	GRADCHECK(table);
	return failures != 0;
}
