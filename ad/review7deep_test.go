package ad

import "testing"

// review7DeepTriangles: triangles inside a loop around them (t), the inner
// start or end depending on both t and i: deep3 by a select on t's parity,
// deep4 over 32-bit unsigned counters with two inner loops. At -O2/-O3
// deep4's joins after its vector loops are decided per iteration of i,
// through phis the paths fix, from i's and t's counters.
const review7DeepTriangles = loopRunPrelude + `
#include <stdlib.h>
int DIM = 5, T = 3;
__attribute__((noinline)) double deep3(double *x, int n) {
	int d = DIM, tt = T; double q[64], e = 0;
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) q[j] = x[j % n];
	for (int t = 0; t < tt; t++)
		for (int i = 0; i < d; i++) {
			double c = x[(i + t + 3) % n] * x[(i + 5) % n];
			int st = (t & 1) ? i + t : i;
			for (int j = st; j < d + t; j++) q[j] += x[(i * 7 + j) % n] * c;
			e += q[i + t] * c;
		}
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) e += q[j] * q[j];
	return e;
}
__attribute__((noinline)) double deep4(double *x, int n) {
	int d = DIM, tt = T; double q[64], e = 0;
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) q[j] = x[j % n];
	for (int t = 0; t < tt; t++)
		for (unsigned i = 0; i < (unsigned)d; i++) {
			double c = x[(i + t + 3) % n] * x[(i + 5) % n];
			for (unsigned j = i * 2; j < (unsigned)(d + t); j++) q[j] += x[(i * 7 + j) % n] * c;
			for (unsigned j = 0; j < i; j++) q[j + 1] -= 0.5 * x[(i + j) % n] * c;
			e += q[i + t] * c;
		}
	for (int j = 0; j < 2 * d + 2 * tt + 4; j++) e += q[j] * q[j];
	return e;
}
CALLEE(deep3) CALLEE(deep4)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); }
COPY(deep3) COPY(deep3_callee) COPY(deep4) COPY(deep4_callee)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	if (getenv("T")) T = atoi(getenv("T"));
	FDRUN(deep3, 41); FDRUN(deep3_callee, 41); FDRUN(deep4, 41); FDRUN(deep4_callee, 41);
	return failures != 0;
}
`

// TestReview7DeepTriangleRun: their gradients against central differences
// at -O2 and -O3, combined and split, for d = 0, 1, 3, 5, 9, 17 and 1..4 rounds, one
// setting valgrind-checked; pass on tidy7.
func TestReview7DeepTriangleRun(t *testing.T) {
	for _, o := range []string{"2", "3"} {
		exe := buildC(t, review7DeepTriangles, o)
		for _, d := range [][2]string{{"0", "2"}, {"1", "3"}, {"3", "1"}, {"5", "3"}, {"9", "4"}, {"17", "2"}} {
			t.Setenv("DIM", d[0])
			t.Setenv("T", d[1])
			out := run(t, exe)
			checkWants(t, out, "-O"+o+" DIM, T = "+d[0]+", "+d[1], []string{"ok deep3[40]", "ok deep3_callee[40]", "ok deep4[40]", "ok deep4_callee[40]"})
		}
		t.Run("leaks", func(t *testing.T) {
			t.Setenv("DIM", "9")
			runLeakChecked(t, exe) // skips only this subtest without valgrind
		})
	}
}
