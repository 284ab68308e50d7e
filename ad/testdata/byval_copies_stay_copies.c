/* The program of TestByvalCopiesStayCopies (retype_test.go), compiled after bitsPrelude. */
typedef struct { double s[6]; int k; } Big;
__attribute__((noinline)) double consume(Big b) { b.s[0] *= b.s[1]; b.s[1] = 0; return b.s[0] * b.k + b.s[1]; }
double twice(double x) {
	Big b = {{x, x * x, 1, 1, 1, 1}, 2};
	return consume(b) + consume(b);
}
int main(void) {
	volatile double xs[] = {-0.75, 1.5};
	for (int i = 0; i < 2; i++) {
		double x = xs[i];
		CHECK("byval twice", __enzyme_autodiff((void *)twice, x), 12 * x * x);
		CHECK("fwd byval twice", __enzyme_fwddiff((void *)twice, x, 1.0), 12 * x * x);
	}
	return failures != 0;
}
