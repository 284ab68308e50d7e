/* The program of TestFramedCallShapes (frametape_test.go), compiled after
 * checkPrelude: calls whose tapes are fields of loop records, in shapes
 * each differentiated in reverse mode, forward mode and batch forward mode
 * (enzyme_width 3, enzyme_dupv) against central differences:
 *   viaptr: calls through function pointers chosen by the data in a loop;
 *   exits: a loop left by a break and by a return, each after a call;
 *   zerotrip: loops that run no iteration around calls, an inner loop
 *     that runs none on every other outer iteration;
 *   walked: a recursion of depth 0 to 5, loops of varying count inside,
 *     early returns inside and outside the loop;
 *   top: mutual recursion (f calls g in a loop, g calls f outside loops
 *     and in a loop whose count varies), depths 0 to 6. */
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width, enzyme_dupv;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[3]; } vec3;
vec3 __enzyme_fwddiff3(void *, ...);
typedef double (*fn_t)(const double *, int);
__attribute__((noinline)) static double fa(const double *x, int i) { return sin(x[i]) * x[0]; }
__attribute__((noinline)) static double fb(const double *x, int i) { double t = x[i] * x[i]; return t > 4 ? sqrt(t) : t * cos(x[1]); }
__attribute__((noinline)) static double fc(const double *x, int i) { return exp(0.1 * x[i]) / (1 + x[2] * x[2]); }
static fn_t table[3] = {fa, fb, fc};
int n = 6, zero = 0;
/* calls through function pointers, chosen by data, in a loop */
double viaptr(const double *x) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		fn_t f = table[(i * 7 + (x[i] > 0.9)) % 3];
		s += f(x, i) * x[(i + 1) % 6];
	}
	return s;
}
/* a loop with several exits, each after a call */
double exits(const double *x) {
	double s = 1;
	for (int i = 0; i < n; i++) {
		double v = fa(x, i);
		if (v > 0.6) { s += fb(x, i); break; }
		s *= 1 + v;
		double w = fc(x, i);
		if (w > 1.1) return s * w;
		s += w * fb(x, (i + 2) % 6);
	}
	return s * s;
}
/* zero-trip loops around calls, then a call after */
double zerotrip(const double *x) {
	double s = x[0];
	for (int i = 0; i < zero; i++) s += fa(x, i) * s;
	for (int j = 0; j < n; j++)
		for (int k = 0; k < zero + (j & 1) * 2; k++) s += fc(x, k) * fb(x, j);
	return s * fb(x, 3);
}
/* recursion with varying depth and early returns, called in a loop */
__attribute__((noinline)) static double walk(const double *x, int d, double w) {
	if (d == 0) return w * x[0];
	if (w > 3) return sin(w) + x[d % 6];
	double s = 0;
	for (int i = 0; i < (d % 3) + 1; i++) {
		s += walk(x, d - 1, w * x[(i + d) % 6]);
		if (s > 50) return s;
	}
	return s * 0.5;
}
double walked(const double *x) {
	double s = 0;
	for (int i = 0; i < n; i++) s += walk(x, i, x[i]);
	return s;
}
typedef double (*obj_t)(const double *);
static double fd(obj_t f, double *x, int i) {
	double s = x[i], h = 1e-6;
	x[i] = s + h; double fp = f(x);
	x[i] = s - h; double fm = f(x);
	x[i] = s;
	return (fp - fm) / (2 * h);
}
#define ALL(what, f, x0)                                                           \
	do {                                                                          \
		double x[6], dx[6] = {0};                                                 \
		for (int i = 0; i < 6; i++) x[i] = (x0)[i];                               \
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx);                          \
		for (int i = 0; i < 6; i++) {                                             \
			char w[64];                                                           \
			double want = fd(f, x, i);                                            \
			snprintf(w, sizeof w, "%s rev dx[%d]", what, i);                      \
			check(w, dx[i], want, 1e-6);                                          \
			double t[6] = {0};                                                    \
			t[i] = 1;                                                             \
			double g = __enzyme_fwddiff((void *)f, enzyme_dup, x, t);             \
			snprintf(w, sizeof w, "%s fwd [%d]", what, i);                        \
			check(w, g, want, 1e-6);                                              \
		}                                                                         \
		double tb[18] = {0};                                                      \
		tb[0] = 1; tb[6 + 2] = 1; tb[12 + 5] = 1;                                 \
		vec3 r = __enzyme_fwddiff3((void *)f, enzyme_width, 3, enzyme_dupv, sizeof(double) * 6, x, tb); \
		char w[64];                                                               \
		snprintf(w, sizeof w, "%s batch 0", what); check(w, r.d[0], dx[0], 1e-6); \
		snprintf(w, sizeof w, "%s batch 2", what); check(w, r.d[1], dx[2], 1e-6); \
		snprintf(w, sizeof w, "%s batch 5", what); check(w, r.d[2], dx[5], 1e-6); \
	} while (0)
typedef struct { double d[2]; } vec2;
vec2 __enzyme_fwddiff2(void *, ...);
static double g(const double *x, int n);
__attribute__((noinline)) static double f(const double *x, int n) {
	if (n <= 0) return sin(x[0]);
	double s = 0;
	for (int i = 0; i < 2; i++) {
		double v = g(x + i, n - 1);
		if (v > 4) return s + v; /* an early exit from the loop, after a call */
		s += v * x[i];
	}
	return s;
}
__attribute__((noinline)) static double g(const double *x, int n) {
	if (n <= 0) return cos(x[1]) * x[0];
	double t = f(x, n - 2); /* outside any loop: its pair's tape on the stack */
	double s = t * t;
	for (int k = 0; k < n % 3; k++) s += f(x + 1, n - 1 - k) * x[k];
	return s + t;
}
int depth = 4;
double top(const double *x) { return f(x, depth) + g(x, depth - 1); }
static void mutualChecks(void) {
	for (depth = 0; depth <= 6; depth++) {
		double x[8], dx[8] = {0};
		for (int i = 0; i < 8; i++) x[i] = 0.3 + 0.11 * i;
		__enzyme_autodiff((void *)top, enzyme_dup, x, dx);
		for (int i = 0; i < 8; i++) {
			double s = x[i], h = 1e-6;
			x[i] = s + h; double fp = top(x);
			x[i] = s - h; double fm = top(x);
			x[i] = s;
			char w[64]; snprintf(w, sizeof w, "depth %d dx[%d]", depth, i);
			double want = (fp - fm) / (2 * h);
			check(w, dx[i], want, 1e-6);
			double t[8] = {0}; t[i] = 1;
			snprintf(w, sizeof w, "depth %d fwd[%d]", depth, i);
			check(w, __enzyme_fwddiff((void *)top, enzyme_dup, x, t), want, 1e-6);
		}
		double tb[16] = {0}; tb[1] = 1; tb[8 + 6] = 1;
		vec2 r = __enzyme_fwddiff2((void *)top, enzyme_width, 2, enzyme_dupv, sizeof(double) * 8, x, tb);
		check("batch 1", r.d[0], dx[1], 1e-9);
		check("batch 6", r.d[1], dx[6], 1e-9);
	}
}
int main(void) {
	const double p[6] = {0.3, 0.7, 1.2, 0.95, -0.4, 0.5}, q[6] = {1.5, 0.2, 0.1, 0.3, 0.85, 1.4};
	ALL("viaptr p", viaptr, p); ALL("viaptr q", viaptr, q);
	ALL("exits p", exits, p); ALL("exits q", exits, q);
	ALL("zerotrip p", zerotrip, p);
	ALL("walked p", walked, p); ALL("walked q", walked, q);
	mutualChecks();
	return failures != 0;
}
