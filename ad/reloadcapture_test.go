package ad

import "testing"

// TestReloadsKeepCapturedWrites: loads the reverse would repeat after a
// later write may have changed what they read stay cached: a local array
// read through a pointer read from memory (its address stored in a struct),
// a global a helper overwrites, and a local array a helper writes through
// a global pointer (set directly, or by another helper).
func TestReloadsKeepCapturedWrites(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + `
struct H { double *p; };
__attribute__((noinline)) double cap_kernel(double *x, int n, struct H *h) {
	double buf[4] = {0.5, 0.25, 0.125, 1};
	h->p = buf;
	double s = 0;
	for (int i = 0; i < n; i++) {
		double a = h->p[i & 3];
		buf[(i + 1) & 3] = x[i];
		s += a * a * x[i];
	}
	return s;
}
__attribute__((noinline)) double captured(double *x, int n) { struct H h; return cap_kernel(x, n, &h); }
static double G[4];
__attribute__((noinline)) void setg(int i, double v) { G[i & 3] = v; }
__attribute__((noinline)) double helper_global(double *x, int n) {
	double s = 0;
	for (int i = 0; i < 4; i++) G[i] = 1 + i;
	for (int i = 0; i < n; i++) {
		double g = G[i & 3];
		setg(i + 1, 2 + 0.5 * i);
		s += g * x[i] * x[i];
	}
	return s;
}
static double *gp;
__attribute__((noinline)) void pokeg(int i, double v) { gp[i & 3] = v; }
__attribute__((noinline)) void keep(double *p) { gp = p; }
__attribute__((noinline)) double helper_opaque(double *x, int n) {
	double buf[4] = {1, 2, 3, 4}, other[4] = {4, 3, 2, 1};
	gp = buf;
	double s = 0;
	for (int i = 0; i < n; i++) {
		double g = buf[i & 3];
		pokeg(i + 1, 0.5 * i);
		s += g * x[i] * x[i];
	}
	keep(other);
	for (int i = 0; i < n; i++) {
		double g = other[i & 3];
		pokeg(i + 2, 0.25 * i);
		s += g * sin(x[i]);
	}
	return s;
}
COPY64(captured) COPY64(helper_global) COPY64(helper_opaque)
int main(void) {
	FDRUN(captured, 9); FDRUN(helper_global, 9); FDRUN(helper_opaque, 9);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCLinked(t, src, o)) })
	}
}
