/* guardedNests are loop nests whose inner loops load particles an
 * enclosing loop (i, or the steps s) does not write, so that they are
 * cached without its dimension (hoist.go), but are entered in some
 * iterations only: guards on the data, on the indices, on values the i
 * loop computes, guards skipping the first or all but the last iteration,
 * continue and break in the i loop, sibling loops one of which is guarded,
 * a load of memory written only in the iterations that skip the loop; and
 * an inner loop whose entry counter the reverse recomputes (counters.go)
 * under a guard. Several also as callees (split gradients).
 * (guardedNests in guard_test.go) */
/* STEPS(name, body): three steps of the i loop running body (which
 * computes the force f and updates p[i].vx), then moving the particles;
 * name returns an energy of the final state. */
#define STEPS(name, ...) \
	__attribute__((noinline)) double name(Particle *p, int n) { \
		for (int s = 0; s < 3; s++) { \
			for (int i = 0; i < n; i++) { __VA_ARGS__ } \
			for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx; \
		} \
		double e = 0; \
		for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y; \
		return e; \
	}

/* A data guard between the middle loop j and the inner loop k: which (j,
 * k) run changes with i. */
STEPS(gmid,
	double f = 0;
	for (int j = 0; j < 3; j++)
		if (p[(i + j) % n].kind)
			_Pragma("clang loop unroll(disable)")
			for (int k = 0; k < 4; k++) f += sin(p[j * 4 + k].x * p[i].y);
	p[i].vx += 0.1 * f;)

/* The same guarded on p[].vx, which the i loop writes (and which
 * differs from one step to the next). */
STEPS(gmidv,
	double f = 0;
	for (int j = 0; j < 3; j++)
		if (p[(i + j) % n].vx > 0.03)
			_Pragma("clang loop unroll(disable)")
			for (int k = 0; k < 4; k++) f += sin(p[j * 4 + k].x * p[i].y);
	p[i].vx += 0.1 * f;)

/* An index guard between j and k that depends on i. */
STEPS(gidx,
	double f = 0;
	for (int j = 0; j < 3; j++)
		if ((i + j) % 3 != 1)
			_Pragma("clang loop unroll(disable)")
			for (int k = 0; k < 4; k++) f += sin(p[j * 4 + k].x * p[i].y);
	p[i].vx += 0.1 * f;)

/* A guard on an invariant trip count m between j and k, and one on j. */
__attribute__((noinline)) double ginv(Particle *p, int n) {
	int m = n / 3;
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < 3; j++)
				if (j != 1)
					for (int k = 0; k < m; k++) f += sin(p[j * m + k].x * p[i].y);
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* Guards directly between i and j: skipping the first iteration, all but
 * the last, and on a value the i loop computes. */
STEPS(gfirst,
	double f = 0;
	if (i > 0)
		for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y);
	p[i].vx += 0.1 * f;)

STEPS(glast,
	double f = 0;
	if (i == n - 1)
		for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y);
	p[i].vx += 0.1 * f + p[i].y;)

STEPS(gcomputed,
	double c = p[i].vx * p[i].y, f = 0;
	if (c > 0.05)
		for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y);
	p[i].vx += 0.1 * f - 0.2 * c;)

/* continue and break in the i loop. */
STEPS(gcont,
	if (i % 3 == 1) continue;
	double f = 0;
	for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y);
	p[i].vx += 0.1 * f;)

STEPS(gbreak,
	if (p[i].vy > 0.15 + 0.02 * s) break;
	double f = 0;
	for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y);
	p[i].vx += 0.1 * f;)

/* Two sibling inner loops, the second guarded on the data. */
STEPS(gsib,
	double f = 0, g = 0;
	for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y);
	if (p[i].kind + (f > 100))
		for (int j = 0; j < n; j++) g += cos(p[j].x - p[i].y) * p[j].y;
	p[i].vx += 0.1 * f + 0.05 * g;)

/* The inner loop loads p[j].x, which the i loop writes, but only in the
 * iterations that skip the inner loop. */
STEPS(gskipw,
	double f = 0;
	if (i % 2 == 0)
		p[(i + 5) % n].x *= 0.9;
	else
		for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y);
	p[i].vx += 0.1 * f;)

/* A data guard around the middle loop j (outermost of the chain). */
STEPS(gouter,
	double f = 0;
	if (p[i].vy > 0)
		for (int j = 0; j < 3; j++)
			_Pragma("clang loop unroll(disable)")
			for (int k = 0; k < 4; k++) f += sin(p[j * 4 + k].x * p[i].y);
	p[i].vx += 0.1 * f;)

/* p[(i + j * 4 + k) & 7].y is written after the steps only: cached
 * without the step dimension, while which (i, j) enter the k loop changes from
 * one step to the next, on the data (gmidw) or on the step's index
 * (gstep). */
__attribute__((noinline)) double gmidw(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < 3; j++)
				if (p[(i + j) % n].vx > 0.03)
#pragma clang loop unroll(disable)
					for (int k = 0; k < 4; k++) f += sin(p[(i + j * 4 + k) & 7].y * p[i].x);
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	for (int i = 0; i < n; i++) p[i].y *= p[i].vx;
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* The same with a guard on a field nothing writes: the k loops entered
 * are the same in every step, so the values stay cached without it. */
__attribute__((noinline)) double gkind(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < 3; j++)
				if (p[(i + j) & 7].kind)
#pragma clang loop unroll(disable)
					for (int k = 0; k < 4; k++) f += sin(p[(i + j * 4 + k) & 7].y * p[i].x);
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	for (int i = 0; i < n; i++) p[i].y *= p[i].vx;
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

__attribute__((noinline)) double gstep(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < 3; j++)
				if ((i + j + s) % 3 != 1)
#pragma clang loop unroll(disable)
					for (int k = 0; k < 4; k++) f += sin(p[(i + j * 4 + k) & 7].y * p[i].x);
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	for (int i = 0; i < n; i++) p[i].y *= p[i].vx;
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* The k loop overwrites what it reads (cached per iteration, so the
 * reverse needs its entry counter) under a guard the same in every j
 * iteration but not in every i iteration or step. */
__attribute__((noinline)) double gentry(Particle *p, int n) {
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < n; i++) {
			double c = p[i].vy;
			for (int j = 0; j < 3; j++)
				if (c > 0.1 * s)
#pragma clang loop unroll(disable)
					for (int k = 0; k < 4; k++) p[j * 4 + k].x = sin(p[j * 4 + k].x) * p[i].y + 0.1;
		}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].x * p[i].x + p[i].y;
	return e;
}

CALLEE(gmid)
CALLEE(gmidw)
CALLEE(gstep)
CALLEE(gkind)
CALLEE(gentry)
CALLEE(gmidv)
CALLEE(gidx)
CALLEE(gfirst)
CALLEE(gsib)
CALLEE(gskipw)
