/* The program of TestReallocBytesUnknown (reallocheld_test.go). */
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double bytes(const double *x, int n) {
	char *buf = NULL;
	for (int i = 0; i < n; i++) {
		buf = realloc(buf, 8 * (i + 1));
		double v = x[i] * x[i];
		memcpy(buf + 8 * i, &v, 8);
	}
	double s = 0;
	for (int i = 0; i < n; i++) { double v; memcpy(&v, buf + 8 * i, 8); s += v * (i + 1); }
	free(buf);
	return s;
}
int main(void) {
	double x[5] = {1, 2, 3, 4, 5}, dx[5] = {0};
	__enzyme_autodiff((void *)bytes, enzyme_dup, x, dx, enzyme_const, 5);
	return 0;
}
