/* snapshotNests are particle systems whose reverse needs counters on
 * entry to loops nested two and three deep (counters.go): the j loop's
 * entry counter and the fill level of the group caching p[j] without the
 * i loop's dimension, both on entry to the i loop in every step. deep
 * nests the steps in rounds; the others must keep a snapshot cached: the
 * i loop skipped in some steps (on the data, or on the step), or the j
 * loop skipped in some rows (its entry counter on entry to the i loop is
 * not a multiple of the row count).
 * (snapshotNests in snapshot_test.go) */
/* Rounds of steps: the counters on entry to the i loop, from the counters
 * on entry to the step loop, from 0 on entry to the round loop. */
__attribute__((noinline)) double deep(Particle *p, int n) {
	for (int t = 0; t < 2; t++)
		for (int s = 0; s < 2; s++) {
			for (int i = 0; i < n; i++) {
				double f = 0;
				for (int j = 0; j < n; j++) f += sin(p[j].x - p[i].y) * p[j].y;
				p[i].vx += 0.05 * f;
			}
			for (int i = 0; i < n; i++) { p[i].x += 0.1 * p[i].vx; p[i].y -= 0.03 * p[i].vx; }
		}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* The i loop runs in the steps where the data say so. */
__attribute__((noinline)) double stepdata(Particle *p, int n) {
	for (int s = 0; s < 4; s++) {
		if (p[0].vx < 0.3)
			for (int i = 0; i < n; i++) {
				double f = 0;
				for (int j = 0; j < n; j++) f += sin(p[j].x - p[i].y) * p[j].y;
				p[i].vx += 0.1 * f;
			}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* The i loop runs in every step but the second. */
__attribute__((noinline)) double stepskip(Particle *p, int n) {
	for (int s = 0; s < 4; s++) {
		if (s != 1)
			for (int i = 0; i < n; i++) {
				double f = 0;
				for (int j = 0; j < n; j++) f += cos(p[j].x * p[i].y);
				p[i].vx += 0.1 * f;
			}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* The j loop runs in two rows of three. */
__attribute__((noinline)) double rowskip(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			if (i % 3 != 1)
				for (int j = 0; j < n; j++) f += sin(p[j].x * p[i].y) * p[j].y;
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

#define CALLEE2(f) __attribute__((noinline)) double f##_callee(Particle *p, int n) { return 2 * f(p, n); }
CALLEE2(deep)
CALLEE2(stepdata)
CALLEE2(rowskip)
