/* The program of TestReallocHeldInStruct (reallocheld_test.go), compiled after checkPrelude. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
typedef struct { double *data; int n, cap; } buf;
#define PUSH(b, v) do { \
		if ((b)->n == (b)->cap) { \
			(b)->cap = (b)->cap ? 2 * (b)->cap : 2; \
			(b)->data = realloc((b)->data, (b)->cap * sizeof *(b)->data); \
		} \
		(b)->data[(b)->n++] = (v); \
	} while (0)
__attribute__((noinline)) static double total(const buf *b) {
	double s = 0;
	for (int i = 0; i < b->n; i++) s += b->data[i] * (i + 1);
	return s;
}
double pushes(const double *x, int n) {
	buf b = {0, 0, 0};
	for (int i = 0; i < n; i++) {
		PUSH(&b, sin(x[i]) * x[i]);
		if (x[i] > 0.5) PUSH(&b, x[i] * x[i]);
	}
	double s = total(&b);
	free(b.data);
	return s;
}
int main(void) {
	enum { N = 9 };
	double x[N], dx[N] = {0}, ds[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.2 + 0.13 * i;
	__enzyme_autodiff((void *)pushes, enzyme_dup, x, dx, enzyme_const, N);
	void *tape = __enzyme_augmentfwd((void *)pushes, enzyme_dup, x, ds, enzyme_const, N);
	__enzyme_reverse((void *)pushes, enzyme_dup, x, ds, enzyme_const, N, 1.0, tape);
	for (int i = 0; i < N; i++) {
		double h = 1e-6, s = x[i];
		x[i] = s + h; double fp = pushes(x, N);
		x[i] = s - h; double fm = pushes(x, N);
		x[i] = s;
		char what[32];
		snprintf(what, sizeof what, "dx[%d]", i);
		check(what, dx[i], (fp - fm) / (2 * h), 1e-6);
		snprintf(what, sizeof what, "split dx[%d]", i);
		check(what, ds[i], (fp - fm) / (2 * h), 1e-6);
	}
	return failures != 0;
}
