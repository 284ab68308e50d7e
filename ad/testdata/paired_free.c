/* The program of TestPairedFree (pairedfree_test.go), compiled after
 * checkPrelude: temporaries a function allocates and always frees itself
 * (their shadows released directly by the reverse), next to allocations
 * that are not always freed where they are made (their shadows follow the
 * shadow set):
 *   cell: a split helper called in a loop, with a scratch buffer filled by
 *     one loop, read by two more, freed after them in another block;
 *   scratch: the same in the gradient's own function;
 *   keep: a helper that frees its node on some calls only and links it
 *     into the caller's list on the others (freed by the caller later);
 *   lagged: a loop freeing the previous iteration's buffer after
 *     allocating the next, the last one freed after the loop.
 * Each gradient against central differences; the test runs it under
 * valgrind (no invalid access, no leak). */
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
enum { N = 5, STEPS = 4 };
int n = N, steps = STEPS;

__attribute__((noinline)) static void cell(int m, const double *w, double *h) {
	double *g = malloc(2 * m * sizeof(double));
	for (int i = 0; i < m; i++) {
		g[i] = 1 / (1 + exp(-(h[i] * w[i])));
		g[m + i] = tanh(h[i] + w[m + i]);
	}
	for (int i = 0; i < m; i++) h[i] = h[i] * g[i] + g[m + i];
	for (int i = 0; i < m; i++) h[i] += g[i] * g[m + i];
	free(g);
}
double run_cells(const double *w, double *h) {
	double s = 0;
	for (int t = 0; t < steps; t++) {
		cell(n, w, h);
		s += h[t % n];
	}
	return s;
}
double f_cell(double *x) {
	double h[N];
	for (int i = 0; i < N; i++) h[i] = 0.1 * i;
	return run_cells(x, h);
}

double scratch(double *x) {
	double *a = malloc(n * sizeof(double)), s = 0;
	for (int i = 0; i < n; i++) a[i] = sin(x[i]) * x[(i + 1) % n];
	for (int i = 0; i < n; i++) s += a[i] * a[i];
	for (int i = 0; i < n; i++) s += cos(a[i]);
	free(a);
	return s;
}

struct node {
	double v;
	struct node *next;
};
__attribute__((noinline)) static double keep(double x, int i, struct node **list) {
	struct node *p = malloc(sizeof *p);
	p->v = x * x;
	double r = sin(p->v);
	if (i % 2) {
		p->next = *list;
		*list = p;
	} else {
		free(p);
	}
	return r;
}
double kept(double *x, struct node **list) {
	double s = 0;
	for (int i = 0; i < n; i++) s += keep(x[i], i, list) * x[(i + 2) % n];
	for (struct node *p = *list; p; p = p->next) s += p->v * 0.5;
	return s;
}
static void drop(struct node *p) {
	while (p) {
		struct node *q = p->next;
		free(p);
		p = q;
	}
}
double f_kept(double *x) {
	struct node *l = 0;
	double s = kept(x, &l);
	drop(l);
	return s;
}

double lagged(double *x) {
	double *prev = 0, s = 0;
	for (int t = 0; t < steps; t++) {
		double *a = malloc(n * sizeof(double));
		for (int i = 0; i < n; i++) a[i] = x[i] * (t + 1) + (prev ? prev[i] : 0);
		free(prev);
		for (int i = 0; i < n; i++) s += sin(a[i]);
		prev = a;
	}
	free(prev);
	return s;
}

typedef double (*fn)(double *);
static void fd(const char *name, fn f, double *x, const double *g) {
	for (int i = 0; i < N; i++) {
		double save = x[i], h = 1e-6;
		x[i] = save + h;
		double fp = f(x);
		x[i] = save - h;
		double fm = f(x);
		x[i] = save;
		char what[64];
		snprintf(what, sizeof what, "%s[%d]", name, i);
		check(what, g[i], (fp - fm) / (2 * h), 1e-6);
	}
}

int main(void) {
	double x[2 * N], g[2 * N];
	for (int i = 0; i < 2 * N; i++) x[i] = 0.3 + 0.1 * i;

	/* cell reads 2N weights: check all of them */
	double hc[N], dh[N] = {0};
	for (int i = 0; i < N; i++) hc[i] = 0.1 * i;
	for (int i = 0; i < 2 * N; i++) g[i] = 0;
	__enzyme_autodiff((void *)run_cells, enzyme_dup, x, g, enzyme_dup, hc, dh);
	for (int i = 0; i < 2 * N; i++) {
		double save = x[i], e = 1e-6;
		x[i] = save + e;
		double fp = f_cell(x);
		x[i] = save - e;
		double fm = f_cell(x);
		x[i] = save;
		char what[64];
		snprintf(what, sizeof what, "cell[%d]", i);
		check(what, g[i], (fp - fm) / (2 * e), 1e-6);
	}

	for (int i = 0; i < N; i++) g[i] = 0;
	__enzyme_autodiff((void *)scratch, enzyme_dup, x, g);
	fd("scratch", scratch, x, g);

	struct node *l = 0, *dl = 0;
	for (int i = 0; i < N; i++) g[i] = 0;
	__enzyme_autodiff((void *)kept, enzyme_dup, x, g, enzyme_dup, &l, &dl);
	/* the kept nodes' shadows are linked into dl: the caller frees them */
	int nl = 0, ns = 0;
	for (struct node *p = l; p; p = p->next) nl++;
	for (struct node *p = dl; p; p = p->next) ns++;
	check("kept shadow nodes", ns, nl, 0);
	drop(l);
	drop(dl);
	fd("kept", f_kept, x, g);

	for (int i = 0; i < N; i++) g[i] = 0;
	__enzyme_autodiff((void *)lagged, enzyme_dup, x, g);
	fd("lagged", lagged, x, g);

	if (failures) return 1;
	printf("done\n");
	return 0;
}
