/* aggregatesSrc differentiates code whose pointers travel inside whole
 * struct values (insertvalue/extractvalue, whole-struct loads and stores,
 * structs returned and passed by value): without shadow aggregates their
 * derivatives would silently be zero.
 * (aggregatesSrc in aggregates_test.go; compiled after memoryPrelude) */
typedef struct { double *p; int n; } View;
typedef struct { double *a, *b; } Pair;
typedef struct { const double *w; double *out; long n; double scale; } Job;

/* A small struct holding a pointer, returned by value. */
__attribute__((noinline)) View make_view(double *x, int n) { View v = {x, n}; return v; }
__attribute__((noinline)) double view_sum(View v) {
	double s = 0;
	for (int i = 0; i < v.n; i++) s += v.p[i] * v.p[i] * (i + 1);
	return s;
}
__attribute__((noinline)) double viewed(double *x, int n) {
	View v = make_view(x, n);
	return view_sum(v) + sin(v.p[0]);
}

/* A pair of pointers, built, returned and passed by value. */
__attribute__((noinline)) Pair halves(double *x, int n) { Pair p = {x, x + n / 2}; return p; }
__attribute__((noinline)) double pair_dot(Pair p, int m) {
	double s = 0;
	for (int i = 0; i < m; i++) s += p.a[i] * cos(p.b[i]);
	return s;
}
__attribute__((noinline)) double paired(double *x, int n) {
	Pair p = halves(x, n);
	Pair q = p;           /* struct copy */
	q.a = q.a + 1;
	return pair_dot(p, n / 2) + pair_dot(q, n / 2 - 1);
}

/* A larger struct (passed in memory) with a const pointer and an output
   pointer to a local buffer. */
__attribute__((noinline)) void run_job(Job j) {
	for (long i = 0; i < j.n; i++) j.out[i] = j.scale * j.w[i] * j.w[(i + 1) % j.n];
}
__attribute__((noinline)) double jobbed(double *x, int n) {
	double out[16];
	Job j = {x, out, n, 1.5};
	run_job(j);
	double s = 0;
	for (int i = 0; i < n; i++) s += exp(0.1 * out[i]);
	return s;
}

/* Views kept in an array of structs, assigned by value. */
__attribute__((noinline)) double stacked(double *x, int n) {
	View vs[2];
	vs[0] = make_view(x, n / 2);
	vs[1] = make_view(x + n / 2, n - n / 2);
	View t = vs[0]; vs[0] = vs[1]; vs[1] = t;
	return view_sum(vs[0]) * view_sum(vs[1]);
}

/* A pointer and a float together, returned by value: the float field
   carries a derivative, the pointer field a shadow. */
typedef struct { double *p; double w; } Weighted;
__attribute__((noinline)) Weighted weigh(double *x, int n) {
	Weighted r = {x + 1, 0};
	for (int i = 0; i < n; i++) r.w += x[i] * x[i];
	return r;
}
__attribute__((noinline)) double weighted(double *x, int n) {
	Weighted r = weigh(x, n);
	return r.w * r.p[0] + r.p[1] * r.p[2];
}

/* A view chosen by a branch: phis (or selects) of aggregates. */
__attribute__((noinline)) double chosen(double *x, int n) {
	View v;
	if (x[0] > 0) v = make_view(x + 1, n - 1);
	else v = make_view(x, n);
	return view_sum(v);
}

/* FWDCHECK(f): forward mode along a direction v, against a central
   difference of f along v. */
double __enzyme_fwddiff(void *, ...);
#define FWDCHECK(f) do { \
		double xc[N], v[N], xp[N], xm[N], h = 1e-6; \
		for (int i = 0; i < N; i++) { v[i] = 0.5 - 0.13 * i; xc[i] = x[i]; xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; } \
		double d = __enzyme_fwddiff((void *)f, enzyme_dup, xc, v, enzyme_const, N); \
		check(#f " (forward)", d, (f(xp, N) - f(xm, N)) / (2 * h), 1e-6); \
	} while (0)

int main(void) {
	enum { N = 10 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.01 * i * i;
	GRADCHECK(viewed);
	GRADCHECK(paired);
	GRADCHECK(jobbed);
	GRADCHECK(stacked);
	GRADCHECK(weighted);
	GRADCHECK(chosen);
#ifdef FORWARD
	FWDCHECK(viewed);
	FWDCHECK(paired);
	FWDCHECK(jobbed);
	FWDCHECK(stacked);
	FWDCHECK(weighted);
	FWDCHECK(chosen);
#endif
	return failures != 0;
}
