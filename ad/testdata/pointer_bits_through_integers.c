/* The program of TestPointerBitsThroughIntegers (retype_test.go), compiled after bitsPrelude. */
__attribute__((noinline)) void movep(double **dst, double **src) { unsigned long u; memcpy(&u, src, 8); memcpy(dst, &u, 8); }
__attribute__((noinline)) double *viabits(double *p) { unsigned long u = (unsigned long)p; return (double *)(u + 8); }
double viaptr(double *x, int n) { double *a[1] = {x}, *b[1]; movep(b, a); return b[0][0] * b[0][1] * *viabits(x); }
int main(void) {
	double x[3] = {0.5, 1.5, 2.5}, dx[3] = {0, 0, 0};
	__enzyme_autodiff((void *)viaptr, enzyme_dup, x, dx, enzyme_const, 3);
	CHECK("dx0", dx[0], 1.5 * 1.5);
	CHECK("dx1", dx[1], 2 * 0.5 * 1.5);
	CHECK("dx2", dx[2], 0);
	return failures != 0;
}
