/* Shared harness of the workloads (bench/workloads/<name>/main.c): each
 * gradient is checked against the hand-written one before it is timed, and
 * results are printed as lines parsed by bench/workloads.go:
 *   TIME <case> <method> <seconds> <relative error against hand-written>
 *   WRONG <case> <method> <relative error>
 * Methods: F (primal), J (gozyme), hand, adolc, adolc-tape, fd.
 * With the argument "J" only J is timed (the GOZYME_AD_STAGE=pre build). */
#ifndef GOZYME_HARNESS_H
#define GOZYME_HARNESS_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../kernels/timing.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

/* Tolerances: AD and hand-written gradients agree to rounding; a central
 * difference only to about h^2 and cancellation. */
#define TOL_AD 1e-8
#define TOL_FD 1e-5

static int only_gozyme;

static void harness_init(int argc, char **argv) {
	only_gozyme = argc > 1 && strcmp(argv[1], "J") == 0;
}

/* rel_err is max|g - want| / max|want|. */
static double rel_err(const double *g, const double *want, long n) {
	double e = 0, s = 0;
	for (long i = 0; i < n; i++) {
		e = fmax(e, fabs(g[i] - want[i]));
		s = fmax(s, fabs(want[i]));
	}
	return isnan(e) ? INFINITY : e / (s > 0 ? s : 1);
}

/* checked compares g with want and reports a WRONG line when they differ. */
static int checked(const char *cas, const char *method, const double *g, const double *want, long n, double tol, double *err) {
	*err = rel_err(g, want, n);
	if (*err <= tol) return 1;
	printf("WRONG %s %s %.3g\n", cas, method, *err);
	fflush(stdout);
	return 0;
}

static void report(const char *cas, const char *method, double seconds, double err) {
	printf("TIME %s %s %.9g %.3g\n", cas, method, seconds, err);
	fflush(stdout);
}

/* time_checked computes a gradient once with fn(arg) into g, checks it
 * against want, and times fn only when it is right. */
static void time_checked(const char *cas, const char *method, void (*fn)(void *), void *arg,
		const double *g, const double *want, long n, double tol) {
	double err;
	fn(arg);
	if (checked(cas, method, g, want, n, tol, &err)) report(cas, method, bench_time(fn, arg), err);
}

/* Methods is what a workload measures for one case; each takes the case.
 * The gradients write to the same buffer; adolc and fd may be NULL where a
 * size is too large for them. */
typedef struct {
	void (*primal)(void *), (*gozyme)(void *), (*hand)(void *);
	void (*adolc_tape)(void *), (*adolc)(void *), (*fd)(void *);
} Methods;

/* run_case checks (timing = 0: go test's quick mode) gozyme's, ADOL-C's and
 * the central difference's gradients against want, the hand-written one; or
 * (timing = 1) times every method, each gradient checked first. Returns
 * whether the quick checks passed. */
static int run_case(const char *cas, void *c, const Methods *m, const double *g, const double *want, long n, int timing) {
	double err;
	if (!timing) {
		int ok = 1;
		m->gozyme(c);
		ok &= checked(cas, "J", g, want, n, TOL_AD, &err);
		if (m->adolc) {
			m->adolc_tape(c);
			m->adolc(c);
			ok &= checked(cas, "adolc", g, want, n, TOL_AD, &err);
		}
		if (m->fd) {
			m->fd(c);
			ok &= checked(cas, "fd", g, want, n, TOL_FD, &err);
		}
		return ok;
	}
	time_checked(cas, "J", m->gozyme, c, g, want, n, TOL_AD);
	if (only_gozyme) return 1;
	report(cas, "F", bench_time(m->primal, c), 0);
	report(cas, "hand", bench_time(m->hand, c), 0);
	if (m->adolc) {
		double t0 = bench_now();
		m->adolc_tape(c);
		report(cas, "adolc-tape", bench_now() - t0, 0);
		time_checked(cas, "adolc", m->adolc, c, g, want, n, TOL_AD);
	}
	if (m->fd) time_checked(cas, "fd", m->fd, c, g, want, n, TOL_FD);
	return 1;
}

/* fd_gradient is the central difference of f at p (n parameters, step h
 * scaled by |p_i|), written to g. */
static void fd_gradient(double (*f)(void *, const double *), void *ctx, double *p, long n, double *g) {
	for (long i = 0; i < n; i++) {
		double save = p[i], h = 1e-6 * fmax(1, fabs(save));
		p[i] = save + h;
		double fp = f(ctx, p);
		p[i] = save - h;
		double fm = f(ctx, p);
		p[i] = save;
		g[i] = (fp - fm) / (2 * h);
	}
}

/* Deterministic inputs: a fixed linear congruential generator in [-1, 1). */
static unsigned long long harness_seed = 88172645463325252ULL;
static double uniform(void) {
	harness_seed = harness_seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(harness_seed >> 11) / 9007199254740992.0 * 2 - 1;
}
#endif
