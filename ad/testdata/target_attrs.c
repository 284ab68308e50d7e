/* The program of TestDerivativesKeepTargetAttributes (targetattrs_test.go),
 * compiled after checkPrelude. objective is built for the baseline target
 * and calls, on the fast path, wide: a callee built for AVX2 and FMA (its
 * own target attribute), whose derivative pair must be too, and which
 * runs only where the CPU has them; else narrow, built like objective. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline, target("avx2,fma"))) static double wide(const double *x) {
	double t = sqrt(x[0] * x[0] + x[1] * x[1] + 1);
	return sin(t) * x[2] + cos(t) * x[0] * x[1];
}

__attribute__((noinline)) static double narrow(const double *x) {
	double t = sqrt(x[0] * x[0] + x[1] * x[1] + 1);
	return cos(t) * x[2] - sin(t) * x[1];
}

__attribute__((noinline)) double objective(const double *x, int fast) {
	double s = fast ? wide(x) : narrow(x);
	return s * s + x[0];
}

int main(void) {
	__builtin_cpu_init();
	int paths = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 2 : 1;
	for (int fast = 0; fast < paths; fast++) {
		double x[3] = {0.7, -0.4, 1.3}, dx[3] = {0, 0, 0};
		__enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_const, fast);
		for (int i = 0; i < 3; i++) {
			double save = x[i], h = 1e-6;
			x[i] = save + h;
			double fp = objective(x, fast);
			x[i] = save - h;
			double fm = objective(x, fast);
			x[i] = save;
			check(fast ? "wide dx" : "narrow dx", dx[i], (fp - fm) / (2 * h), 1e-7);
		}
	}
	return failures != 0;
}
