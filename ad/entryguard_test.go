package ad

import "testing"

// guardKernels: loops in steps whose vectorized (or runtime-unrolled)
// inner loop has an exact trip count computed before the step loop, from
// which the buffer of the inner loop's records grows once on entry to the
// step loop (entrygrow.go). Where the vector loop is skipped (m below the
// vector width, or an alias check failing), that count is computed from
// values the primal never uses, such as ((m & ~3) - 4) / 4 + 1 at m < 4:
// the growth must not count it (its guards select 0). vlast and vpair
// carry a value out of the vector loop, vshift shifts x in place (the
// alias check sends it to the scalar loop), vtail's reduction is
// unrolled with a remainder (no fast-math) and vcond enters its loop on a condition that
// changes from step to step.
const guardKernels = pathKernels + `
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
STEPS(vcond,
	double y = 0;
	if (x[s] > 0.35)
		for (int i = 0; i < m; i++) {
			y = x[i] * x[m + i];
			x[m + i] = y + 0.1;
		}
	e += y * x[s] + x[m];)
`

// guardRuns checks the gradients of guardKernels against central
// differences at m = 0..9, combined and as callees.
const guardRuns = loopRunPrelude + guardKernels + `
CALLEE(vlast)
CALLEE(vpair)
COPY64(vlast)
COPY64(vpair)
COPY64(vshift)
COPY64(vcond)
COPY64(vtail)
COPY64(vlast_callee)
COPY64(vpair_callee)
int main(void) {
	for (int n = 1; n < 20; n++) {
		FDRUN(vlast, n); FDRUN(vpair, n); FDRUN(vshift, n); FDRUN(vcond, n); FDRUN(vtail, n);
		FDRUN(vlast_callee, n); FDRUN(vpair_callee, n);
	}
	return failures != 0;
}
`

// The step loops' gradients match central differences at every level,
// where the vector loops run and where they are skipped.
func TestEntryGuardRun(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, guardRuns, o)) })
	}
}
