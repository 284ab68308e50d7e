/* The program of TestRelu3AndSquare (scalar_test.go), compiled after checkPrelude. */
double relu3(double x) { return x > 0 ? pow(x, 3) : 0; }
double square(double x) { return x * x; }
double __enzyme_autodiff(void *, ...);
int main(void) {
	volatile double xs[] = {-1.5, -0.25, 0.5, 1.0, 2.0, 3.5};
	for (int i = 0; i < 6; i++) {
		double x = xs[i];
		CHECK("relu3'", __enzyme_autodiff((void *)relu3, x), x > 0 ? 3 * x * x : 0);
		CHECK("square'", __enzyme_autodiff((void *)square, x), 2 * x);
	}
	return failures != 0;
}
