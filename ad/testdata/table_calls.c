/* The program of TestTableCalls (calleetable_test.go), compiled after checkPrelude. */
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static double (*const table[])(double) = {sq, cube, sin};
struct ops { double (*f)(double); double w; double (*g)(double); };
static const struct ops ops = {cube, 2.0, sq};
double global_table(double x) { return table[1](x) + table[0](x) * 2 + table[2](x); }
double struct_table(double x) { return ops.f(x) * ops.w + ops.g(x); }
double initialized(double x) {
	double (*local[3])(double) = {cube, sq, sin};
	return local[0](x) + 3 * local[1](x) + local[2](x);
}
double stored(double x) {
	double (*local[2])(double);
	local[1] = sq;
	local[0] = cube;
	return local[0](x) * local[1](x);
}
int main(void) {
	for (double x = -1.5; x < 2; x += 0.7) {
		double d[] = {3 * x * x + 4 * x + cos(x), 6 * x * x + 2 * x, 3 * x * x + 6 * x + cos(x), 5 * x * x * x * x};
		CHECK("global_table", __enzyme_autodiff((void *)global_table, x), d[0]);
		CHECK("struct_table", __enzyme_autodiff((void *)struct_table, x), d[1]);
		CHECK("initialized", __enzyme_autodiff((void *)initialized, x), d[2]);
		CHECK("stored", __enzyme_autodiff((void *)stored, x), d[3]);
		CHECK("global_table forward", __enzyme_fwddiff((void *)global_table, x, 1.0), d[0]);
		CHECK("struct_table forward", __enzyme_fwddiff((void *)struct_table, x, 1.0), d[1]);
		CHECK("initialized forward", __enzyme_fwddiff((void *)initialized, x, 1.0), d[2]);
		CHECK("stored forward", __enzyme_fwddiff((void *)stored, x, 1.0), d[3]);
	}
	return failures != 0;
}
