/* guardKernels: loops in steps whose vectorized (or runtime-unrolled)
 * inner loop has an exact trip count computed before the step loop, from
 * which the buffer of the inner loop's records grows once on entry to the
 * step loop (entrygrow.go). Where the vector loop is skipped (m below the
 * vector width, or an alias check failing), that count is computed from
 * values the primal never uses, such as (((m & ~3) - 4) >>u 2) + 1, 2^62
 * at m < 4: the growth must not count it (where the guards skip the
 * loop, the nest grows nothing). vlast and vpair
 * carry a value out of the vector loop, vshift shifts x in place (the
 * alias check sends it to the scalar loop), vtail's reduction is
 * unrolled with a remainder (no fast-math), vneg's bound m - 2 is
 * negative for n < 6 (its loop skipped by the zero-trip guard; it trapped
 * at -O2 too), and vcond enters its loop on a condition that
 * changes from step to step.
 * (guardKernels in entryguard_test.go; compiled after pathKernels) */
STEPS(vpair,
	double y = 0, z = 1;
	for (int i = 0; i < m; i++) {
		y = x[i] * x[m + i];
		z = x[m + i] - 0.5 * x[i];
		x[i] = y * 0.5 + z;
	}
	e += y * z + x[s];)
STEPS(vshift,
	double y = 0;
	for (int i = 0; i < m; i++) {
		y = x[i + 1] * x[i];
		x[i] = y + 0.2;
	}
	e += y * x[n - 1 - s];)
STEPS(vtail,
	double t = 0, y = 0;
	for (int i = 0; i < m; i++) {
		y = x[m + i] * x[i];
		t = t * 0.5 + y;
	}
	x[s] = cos(t) * x[s];
	e += t + y;)
STEPS(vneg,
	for (int i = 0; i < m - 2; i++) x[i] = x[i] * x[i + 1] + 0.1;
	e += x[s] * x[n - 1];)
STEPS(vcond,
	double y = 0;
	if (x[s] > 0.35)
		for (int i = 0; i < m; i++) {
			y = x[i] * x[m + i];
			x[m + i] = y + 0.1;
		}
	e += y * x[s] + x[m];)
