/* The program of TestDebugInfoCallees (debugscope_test.go), compiled after reallocCounter. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double steps(double *x, int n) {
	for (int k = 0; k < n; k++) x[0] = sin(x[0]) * x[0] + 0.1;
	return x[0];
}
static double at(double x0, double h) { double x[1] = {x0 + h}; return steps(x, 7); }
int main(void) {
	double x[1] = {0.7}, dx[1] = {0}, h = 1e-6;
	__enzyme_autodiff((void *)steps, enzyme_dup, x, dx, enzyme_const, 7);
	double fd = (at(0.7, h) - at(0.7, -h)) / (2 * h);
	printf("gradient %.12g, central difference %.12g, reallocs %ld\n", dx[0], fd, reallocs);
	return !(fabs(dx[0] - fd) < 1e-6 && reallocs > 0);
}
