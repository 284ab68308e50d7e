/* The program of TestLoopedRecursionTapes (frametape_test.go), compiled
 * after checkPrelude and det_of_minor.c: recursive functions calling themselves inside loops,
 * so that every call's tape is a field of its caller's iteration record.
 *   det: the determinant by expansion by minors (row and column lists
 *     edited and restored by the recursion), a leaf path caching nothing
 *     but the entry's index and shadow; sizes 1 to 5 (depths 1 to 5).
 *   walk: a loop whose trip count is known only as it runs (a sentinel in
 *     an index array, 12 entries: the record buffer grows, and moves, in
 *     the loop, after tapes were written into it), two recursive calls per
 *     iteration, the second under a condition on the data.
 *   grid: the recursive call in the inner loop of a nest (the records of
 *     the inner loop indexed across the outer loop's iterations).
 * Each gradient against central differences. */
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);

enum { maxN = 5 };

static long detN; /* the matrix size of det (not a constant: kept a variable) */

double det(const double *a) {
	long r[maxN + 1], c[maxN + 1];
	for (long i = 0; i < detN; i++) r[i] = c[i] = i + 1;
	r[detN] = c[detN] = 0;
	return det_of_minor(a, detN, detN, r, c);
}

/* 12 children, then the sentinel. */
static const int kids[] = {3, 0, 7, 1, 5, 2, 6, 4, 2, 7, 0, 3, -1};

__attribute__((noinline)) static double walk(const double *x, int depth, double w) {
	if (depth == 0) return sin(x[0] * w) + x[1];
	double s = 0;
	for (int i = 0; kids[i] >= 0; i++) {
		double v = x[kids[i]];
		double t = walk(x, depth - 1, w * v);
		if (v > 0.5) t += walk(x + 1, depth - 1, v) * v;
		s += t * t * 0.01;
	}
	return s;
}

static int walkDepth;

double walked(const double *x) { return walk(x, walkDepth, 1.0); }

int rows = 3, cols = 4; /* not constants: the loops stay loops */

__attribute__((noinline)) static double grid(const double *x, int depth) {
	if (depth == 0) return x[0] * x[1];
	double s = 0;
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++) {
			double g = grid(x + ((i + j) & 1), depth - 1);
			s += x[i + j] * g + cos(g);
		}
	return 0.05 * s;
}

static int gridDepth;

double gridded(const double *x) { return grid(x, gridDepth); }

/* GRADIENT_CHECK checks f's gradient over its first n inputs at p. */
#define GRADIENT_CHECK(what, f, p, n)                                    \
	do {                                                               \
		double dp[maxN * maxN] = {0};                                  \
		__enzyme_autodiff((void *)f, enzyme_dup, p, dp);               \
		for (int i = 0; i < (n); i++) {                                \
			double save = p[i], h = 1e-6;                              \
			p[i] = save + h;                                           \
			double fp = f(p);                                          \
			p[i] = save - h;                                           \
			double fm = f(p);                                          \
			p[i] = save;                                               \
			check(what, dp[i], (fp - fm) / (2 * h), 1e-6);             \
		}                                                              \
	} while (0)

int main(void) {
	double a[maxN * maxN], x[maxN * maxN];
	for (int i = 0; i < maxN * maxN; i++) {
		a[i] = 0.3 + 0.7 * sin(1.7 * i + 0.2);
		x[i] = 0.23 + 0.1 * (i % 9); /* none at walk's threshold 0.5 */
	}
	char what[64];
	for (detN = 1; detN <= maxN; detN++) {
		snprintf(what, sizeof what, "det, n = %ld", detN);
		GRADIENT_CHECK(what, det, a, (int)(detN * detN));
	}
	for (walkDepth = 0; walkDepth <= 2; walkDepth++) {
		snprintf(what, sizeof what, "walk, depth %d", walkDepth);
		GRADIENT_CHECK(what, walked, x, 10);
	}
	for (gridDepth = 0; gridDepth <= 2; gridDepth++) {
		snprintf(what, sizeof what, "grid, depth %d", gridDepth);
		GRADIENT_CHECK(what, gridded, x, 7);
	}
	return failures != 0;
}
