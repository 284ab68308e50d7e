package ad

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// particleC is a particle system (forces from p[j] on p[i], then a
// position update) and two variants that must keep their per-iteration
// caches: one writing p[i].x inside the i loop (the p[j].x it loads
// changes from one i to the next) and one whose inner loop starts at i (a
// triangle: the same j iteration number reads another particle for each i).
// CHECK_PARTICLES compares each gradient with central differences and
// prints the heap the gradient keeps after a call: its cache buffers, which
// combined gradients retain (retain.go).
const particleC = checkPrelude + `
#include <malloc.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct { double x, y, vx, vy; int kind; } Particle;

__attribute__((noinline)) double particles(Particle *p, int n) {
	for (int s = 0; s < 4; s++) {
		for (int i = 0; i < n; i++) {
			double fx = 0, fy = 0;
			for (int j = 0; j < n; j++) {
				if (i == j) continue;
				double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
				double r2 = dx * dx + dy * dy + 0.5;
				double f = (p[i].kind == p[j].kind ? 1.0 : -1.0) / (r2 * sqrt(r2));
				fx += f * dx;
				fy += f * dy;
			}
			p[i].vx += 0.01 * fx;
			p[i].vy += 0.01 * fy;
		}
		for (int i = 0; i < n; i++) { p[i].x += 0.1 * p[i].vx; p[i].y += 0.1 * p[i].vy; }
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].x * p[i].y;
	return e;
}

/* p[i].x is written inside the i loop: p[j].x differs between i iterations. */
__attribute__((noinline)) double overlapping(Particle *p, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < n; j++) f += sin(p[j].x - p[i].y) * p[j].vy;
			p[i].x += 0.1 * f;
		}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].x * p[i].x + p[i].y;
	return e;
}

/* The inner loop starts at i: its k-th iteration reads p[i + k]. */
__attribute__((noinline)) double triangular(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = i; j < n; j++) f += cos(p[j].x * p[i].y);
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x;
	return e;
}

static size_t heap(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }

/* CHECK_PARTICLES(f, n): the gradient of f against central differences,
 * and the heap it keeps (its retained caches), printed as "tape f BYTES". */
#define CHECK_PARTICLES(f, n) do { \
		Particle w[64], d[64]; \
		init(n); \
		memcpy(w, P, sizeof P); \
		memset(d, 0, sizeof d); \
		size_t before = heap(); \
		__enzyme_autodiff((void *)f, enzyme_dup, w, d, enzyme_const, n); \
		printf("tape %s %zu\\n", #f, heap() - before); \
		fdparticles(#f, f, n, d); \
	} while (0)
static Particle P[64];
static void init(int n) {
	for (int i = 0; i < n; i++) P[i] = (Particle){cos(i * 1.7) * 3, sin(i * 2.3) * 3, 0.1 * sin(i), 0.2 * cos(i), i % 2};
}
static void fdparticles(const char *name, double (*f)(Particle *, int), int n, Particle *d) {
	Particle w[64];
	for (int i = 0; i < n; i++) {
		double *fld[4] = {&P[i].x, &P[i].y, &P[i].vx, &P[i].vy}, *dfld[4] = {&d[i].x, &d[i].y, &d[i].vx, &d[i].vy};
		for (int k = 0; k < 4; k++) {
			double save = *fld[k], h = 1e-6;
			*fld[k] = save + h; memcpy(w, P, sizeof P); double fp = f(w, n);
			*fld[k] = save - h; memcpy(w, P, sizeof P); double fm = f(w, n);
			*fld[k] = save;
			char what[64]; snprintf(what, sizeof what, "%s p[%d].%d", name, i, k);
			check(what, *dfld[k], (fp - fm) / (2 * h), 1e-5);
		}
	}
}
`

// tapeOf reads the "tape NAME BYTES" line of a particle test's output.
func tapeOf(t *testing.T, out, name string) int {
	t.Helper()
	m := regexp.MustCompile(`tape ` + name + ` (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no tape line for %s in %q", name, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// The particle system's gradient is right at every level, and its tape is
// about what it overwrites: 4 steps × n particles × 4 doubles, not the
// n² pairs (p[j] is cached per step and j, p[i] per step and i). The
// variants whose loads do change with i stay right.
func TestHoistedParticles(t *testing.T) {
	const n = 32
	src := particleC + fmt.Sprintf(`
int main(void) {
	CHECK_PARTICLES(particles, %d);
	CHECK_PARTICLES(overlapping, 12);
	CHECK_PARTICLES(triangular, 12);
	return failures != 0;
}
`, n)
	overwritten := 4 * n * 4 * 8
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			tape := tapeOf(t, out, "particles")
			t.Logf("particles(n=%d) tape %d B, overwritten %d B", n, tape, overwritten)
			// Per pair, the loads alone would take 4·n²·16 B = 64 KiB.
			if tape > 2*overwritten {
				t.Errorf("-O%s: tape %d B, more than twice the %d B the function overwrites", o, tape, overwritten)
			}
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

var _ = strings.Contains
