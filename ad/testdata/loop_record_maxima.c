/* loopRecordMaxima are the shapes of a mean of a vector's maxima, with an
 * analytic gradient: the number of maxima counted in one loop, reset on
 * each new maximum, and the kept values summed in a second loop bounded
 * by it; a sum of the first c values, c the number of positive ones.
 * (loopRecordMaxima in looprecord_test.go; compiled after memoryPrelude) */
__attribute__((noinline)) double mean_of_maxima(double *v, int n) {
	double best = -1e7, *keep = malloc(n * sizeof *keep);
	int c = 0;
	for (int i = 0; i < n; i++) {
		if (v[i] > best) { c = 0; best = v[i]; }
		if (v[i] == best) keep[c++] = v[i];
	}
	double s = 0;
	for (int i = 0; i < c; i++) s += keep[i];
	free(keep);
	return s / c;
}
__attribute__((noinline)) double sum_of_maxima(double *v, int n) {
	double best = -1e7;
	int c = 0;
	for (int i = 0; i < n; i++) {
		if (v[i] > best) { c = 0; best = v[i]; }
		if (v[i] == best) c++;
	}
	double s = 0;
	for (int i = 0; i < c; i++) s += v[i];
	return s;
}
__attribute__((noinline)) double first_positive_count(double *v, int n) {
	int c = 0;
	for (int i = 0; i < n; i++) if (v[i] > 0) c++;
	double s = 0;
	for (int i = 0; i < c; i++) s += v[i];
	return s;
}
/* EXPECT(f, n, v, want): the gradient of f at v[n] against want[n]. */
#define EXPECT(f, n, v, want) do { \
		double x[n] = v, dx[n] = {0}, w[n] = want; \
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); \
		for (int i = 0; i < n; i++) { \
			char what[64]; snprintf(what, sizeof what, "%s[%d] of %d", #f, i, n); \
			check(what, dx[i], w[i], 1e-12); \
		} \
	} while (0)
#define V(...) {__VA_ARGS__}
#define EIGHT(x) V(x, x, x, x, x, x, x, x)
int main(void) {
	/* Each first on eight equal values, whose records the gradient's
	 * buffers keep for the next call: a record read past the second
	 * call's last iteration is the first call's. */
	EXPECT(mean_of_maxima, 8, EIGHT(5), EIGHT(0.125));
	EXPECT(mean_of_maxima, 5, V(-1, 2, -0.2, 2, 1), V(0, 0.5, 0, 0.5, 0));
	EXPECT(sum_of_maxima, 8, EIGHT(5), EIGHT(1));
	EXPECT(sum_of_maxima, 5, V(3, 3, 1, 2, -1), V(1, 1, 0, 0, 0));
	EXPECT(first_positive_count, 8, EIGHT(5), EIGHT(1));
	EXPECT(first_positive_count, 5, V(1, 2, -3, 4, 5), V(1, 1, 1, 1, 0));
	return failures != 0;
}
