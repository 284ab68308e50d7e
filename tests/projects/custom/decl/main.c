#include <math.h>
#include <stdio.h>
#include "../check.h"
/* A computed include: the rules reach this TU through a macro naming the
   header, which the attribute scan cannot follow by itself. */
#define SNAP_HEADER "snap.h"
#include SNAP_HEADER

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int snap_grad_calls, snap_fwd_calls, halve_grad_calls;

static double halves(const double *w, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += halve(w[i]) * w[i];
	return s;
}

static double loss(const double *w, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += snap(w[i]) * w[i];
	return s;
}

int main(void) {
	enum { N = 4 };
	double w[N] = {0.3, -1.8, 2.6, 4.1}, dw[N] = {0}, t[N] = {1, 0.5, -2, 0.25};
	/* Straight through: d/dw (snap(w) w) = w + snap(w). */
	__enzyme_autodiff((void *)loss, enzyme_dup, w, dw, enzyme_const, N);
	double want = 0;
	for (int i = 0; i < N; i++) {
		check("decl_grad", dw[i], w[i] + snap(w[i]));
		want += (w[i] + snap(w[i])) * t[i];
	}
	check("decl_fwd", __enzyme_fwddiff((void *)loss, enzyme_dup, w, t, enzyme_const, N), want);
	check("snap_grad_calls", snap_grad_calls, N);
	double dh[N] = {0};
	__enzyme_autodiff((void *)halves, enzyme_dup, w, dh, enzyme_const, N);
	for (int i = 0; i < N; i++) check("decl_halve", dh[i], w[i] + halve(w[i]));
	check("halve_grad_calls", halve_grad_calls, N);
	check("snap_fwd_calls", snap_fwd_calls, N);
	printf("failures %d\n", failures);
	return failures != 0;
}
