/* The program of TestUndefTwoInputShuffle (undeflanes_test.go), compiled after checkPrelude. */
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double dx, dy; } pair;
pair __enzyme_autodiff2(void *, double, double);
double two_input(double x, double y);
int main(void) {
	double x = 1.5, y = -0.7;
	pair d = __enzyme_autodiff2((void *)two_input, x, y);
	CHECK("dx", d.dx, 2 * x * y);
	CHECK("dy", d.dy, x * x);
	CHECK("dx forward", __enzyme_fwddiff((void *)two_input, x, 1.0, y, 0.0), 2 * x * y);
	CHECK("dy forward", __enzyme_fwddiff((void *)two_input, x, 0.0, y, 1.0), x * x);
	return failures != 0;
}
