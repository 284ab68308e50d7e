/* The program of TestLogIntoGlobalContainer (globalchoice_test.go), compiled after checkPrelude. */
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
typedef struct { const double *x, *y; int n; int in_derivative; } record;
record *records;
size_t nrecords, caprecords;
int in_derivative;
__attribute__((noinline)) static void log_call(const double *x, const double *y, int n) {
	if (nrecords == caprecords) {
		caprecords = caprecords ? 2 * caprecords : 1;
		records = realloc(records, caprecords * sizeof *records);
	}
	records[nrecords].x = x;
	records[nrecords].y = y;
	records[nrecords].n = n;
	records[nrecords].in_derivative = in_derivative;
	nrecords++;
}
__attribute__((noinline)) double dot(const double *x, const double *y, int n) {
	log_call(x, y, n);
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * y[i];
	return s;
}
double energy(const double *x, const double *y, int n) {
	double d = dot(x, y, n);
	in_derivative = 1;
	return d * d + dot(x, x, n);
}
int main(void) {
	enum { N = 4 };
	double x[N] = {0.5, -1, 2, 0.25}, y[N] = {1.5, 0.5, -0.75, 2}, dx[N] = {0}, dy[N] = {0};
	__enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
	double d = 0;
	for (int i = 0; i < N; i++) d += x[i] * y[i];
	for (int i = 0; i < N; i++) {
		CHECK("d energy / dx", dx[i], 2 * d * y[i] + 2 * x[i]);
		CHECK("d energy / dy", dy[i], 2 * d * x[i]);
	}
	CHECK("records logged", (double)nrecords, 2);
	CHECK("the log holds the primal x", records[0].x == x && records[1].x == x && records[1].y == x, 1);
	CHECK("and the primal y", records[0].y == y, 1);
	free(records);
	return failures != 0;
}
