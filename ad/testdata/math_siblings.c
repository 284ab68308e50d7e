/* The program of TestMathSiblings (mathsibling_test.go), compiled after
 * checkPrelude. both takes sin and cos of one angle in one block: their
 * reverses read each other's values. The rest must not: other_angle takes
 * cos of a different value, split takes cos in another block (not run
 * whenever sin is). Each gradient against central differences. */
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double both(const double *p) {
	double t = p[0] * p[1] + p[2];
	return sin(t) * p[1] + cos(t) * p[2] * p[2];
}

__attribute__((noinline)) double other_angle(const double *p) {
	double t = p[0] * p[1];
	return sin(t) * p[2] + cos(t + p[2]);
}

int take_cos = 1; /* not a constant: the branch stays */

__attribute__((noinline)) double split(const double *p) {
	double t = p[0] + p[2], s = sin(t) * p[1];
	if (take_cos) s += cos(t) * p[0];
	return s;
}

#define GRADIENT_CHECK(what, f)                                          \
	do {                                                               \
		double q[3] = {0.7, -0.3, 1.1}, dq[3] = {0, 0, 0};             \
		__enzyme_autodiff((void *)f, enzyme_dup, q, dq);               \
		for (int i = 0; i < 3; i++) {                                  \
			double save = q[i], h = 1e-6;                              \
			q[i] = save + h;                                           \
			double fp = f(q);                                          \
			q[i] = save - h;                                           \
			double fm = f(q);                                          \
			q[i] = save;                                               \
			check(what, dq[i], (fp - fm) / (2 * h), 1e-6);             \
		}                                                              \
	} while (0)

int main(void) {
	GRADIENT_CHECK("both", both);
	GRADIENT_CHECK("other angle", other_angle);
	GRADIENT_CHECK("split", split);
	take_cos = 0;
	GRADIENT_CHECK("split, no cos", split);
	return failures != 0;
}
