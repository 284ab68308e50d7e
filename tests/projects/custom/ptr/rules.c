#include <stdlib.h>

/* Rules for the pointer-returning functions of ptr/main.c. */
int row_aug_calls, row_rev_calls, scaled_aug_calls, scaled_rev_calls;

/* row: the result's shadow is the same row of the shadow matrix; the
   derivatives flow through it, so the reverse has nothing to add. */
double *row(double *m, int i, int n);
typedef struct { double *ret, *dret; } row_pair;
row_pair row_aug(double *m, double *dm, int i, int n) {
	row_aug_calls++;
	return (row_pair){m + i * n, dm + i * n};
}
void row_rev(double *m, double *dm, int i, int n) {
	(void)m, (void)dm, (void)i, (void)n;
	row_rev_calls++;
}
void *__enzyme_register_gradient_row[3] = {(void *)row, (void *)row_aug, (void *)row_rev};

/* scaled: a fresh buffer; its shadow is a zeroed buffer that the reverse
   reads (y = 2x, so dx += 2 dy) and frees. The tape carries it. */
double *scaled(const double *x, int n);
typedef struct { void *tape; double *ret, *dret; } scaled_aug_t;
scaled_aug_t scaled_aug(const double *x, const double *dx, int n) {
	(void)dx;
	scaled_aug_calls++;
	double *dy = calloc(n, sizeof *dy);
	return (scaled_aug_t){dy, scaled(x, n), dy};
}
void scaled_rev(const double *x, double *dx, int n, void *tape) {
	(void)x;
	scaled_rev_calls++;
	double *dy = tape;
	for (int i = 0; i < n; i++) dx[i] += 2 * dy[i];
	free(dy);
}
void *__enzyme_register_gradient_scaled[3] = {(void *)scaled, (void *)scaled_aug, (void *)scaled_rev};
