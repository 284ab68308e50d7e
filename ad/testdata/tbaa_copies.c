/* The program of TestTBAACopies (tbaa_test.go), compiled after memoryPrelude. */
typedef struct { const double *init; int n; int steps; } Cfg;
__attribute__((noinline)) double recur(double *w, const Cfg *c) {
	int n = c->n;
	double *h = malloc(n * sizeof *h);
	for (int i = 0; i < n; i++) h[i] = c->init[i];
	for (int t = 0; t < c->steps; t++)
		for (int i = 0; i < n; i++) h[i] = tanh(w[i] * h[i] + w[(i + 1) % n] * h[(i + n - 1) % n]);
	double s = 0;
	for (int i = 0; i < n; i++) s += h[i] * h[i];
	free(h);
	return s;
}
static const double init[10] = {0.1, -0.2, 0.3, 0.5, -0.7, 0.2, 0.9, -0.4, 0.6, 0.05};
static double recur_flat(double *w, int n) { Cfg c = {init, n, 3}; return recur(w, &c); }

/* The state itself active: copied from the active input into the buffer. */
__attribute__((noinline)) double recur_state(double *x, int n) {
	double *h = malloc(n * sizeof *h);
	const double *src = x;
	for (int i = 0; i < n; i++) h[i] = src[i];
	for (int t = 0; t < 3; t++)
		for (int i = 0; i < n; i++) h[i] = sin(h[i] * h[(i + 1) % n]) + 0.5 * h[i];
	double s = 0;
	for (int i = 0; i < n; i++) s += h[i];
	free(h);
	return s;
}

/* Row pointers copied from a struct's table into a malloc'd one (the
   copy's tag is "any pointer"): their shadows are copied with them. */
typedef struct { double **tab; int n; } Tab;
__attribute__((noinline)) double tabbed(const Tab *t) {
	double **r = malloc(t->n * sizeof *r);
	for (int i = 0; i < t->n; i++) r[i] = t->tab[i];
	double s = 0;
	for (int i = 0; i < t->n; i++) s += r[i][0] * cos(r[i][1]);
	free(r);
	return s;
}
static double tabbed_flat(double *x, int n) {
	double *rows[5];
	for (int i = 0; i < 5; i++) rows[i] = x + 2 * i;
	Tab t = {rows, n / 2};
	return tabbed(&t);
}

int main(void) {
	enum { N = 10 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.11 * i - 0.02 * i * i;
	{
		double dw[N] = {0};
		Cfg c = {init, N, 3};
		__enzyme_autodiff((void *)recur, enzyme_dup, x, dw, enzyme_const, &c);
		fdcheck("recur", recur_flat, x, N, dw);
	}
	GRADCHECK(recur_state);
	{
		double dx[N] = {0}, *rows[5], *drows[5];
		for (int i = 0; i < 5; i++) { rows[i] = x + 2 * i; drows[i] = dx + 2 * i; }
		Tab t = {rows, N / 2}, dt = {drows, N / 2};
		__enzyme_autodiff((void *)tabbed, enzyme_dup, &t, &dt);
		fdcheck("tabbed", tabbed_flat, x, N, dx);
	}
	return failures != 0;
}
