/* The program of TestErrorEstimateLoggerByID (errorest_test.go), compiled after errorPrelude. */
#include <string.h>
static int calls, calls_exp;
static double seen[8];
void enzymeLogError(const char *id, double err) {
	if (calls < 8) seen[calls] = err;
	calls++;
	if (strstr(id, "call")) calls_exp++;
}
double f(double x, double *side) {
	double y = exp(x) / 3;
	*side = y * 7; /* into memory without a shadow: reaches no result */
	return y + x;
}
int main(void) {
	double x = 0.75, side, ex = 4e-12;
	double r = __enzyme_error_estimate((void *)f, x, ex, enzyme_const, &side);
	double e = exp(x), y = e / 3;
	double ee = MAX(ULP(e), fabs(x * ex));     /* d exp = exp: condition x */
	double ey = MAX(ULP(y), ee);               /* /3 keeps a relative error */
	double er = MAX(ULP(y + x), fabs(y / (y + x) * ey) + fabs(x / (y + x) * ex));
	CHECK("error of exp(x)/3 + x", r, er);
	CHECK("three operations logged (exp, /, +)", calls, 3);
	CHECK("one of them a call", calls_exp, 1);
	CHECK("the logged error of exp", seen[0], ee);
	CHECK("the logged error of the division", seen[1], ey);
	CHECK("the last logged is the result's", seen[2], er);
	return failures != 0;
}
