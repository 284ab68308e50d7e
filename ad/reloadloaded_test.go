package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
)

// A nest reading a points array and a centroids array, each through a data
// pointer read from a struct (a std::vector's begin), in a function that
// writes no memory: the inner loop re-loads both in the reverse sweep
// instead of caching their difference per iteration (k-means' n·k·d
// doubles), although the objects the pointers point to are unknown.
const loadedBasesIR = `
%vec = type { double*, double*, double* }
define double @cost(%vec* %pts, %vec* %cs, i64 %n, i64 %k) {
entry:
  %pp = getelementptr inbounds %vec, %vec* %pts, i64 0, i32 0
  %p = load double*, double** %pp, align 8
  %cp = getelementptr inbounds %vec, %vec* %cs, i64 0, i32 0
  %c = load double*, double** %cp, align 8
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi double [ 0.0, %entry ], [ %acc.next, %latch ]
  %pi.p = getelementptr inbounds double, double* %p, i64 %i
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %acc = phi double [ %s, %outer ], [ %acc.next, %inner ]
  %pi = load double, double* %pi.p, align 8
  %cj.p = getelementptr inbounds double, double* %c, i64 %j
  %cj = load double, double* %cj.p, align 8
  %d = fsub double %pi, %cj
  %dd = fmul double %d, %d
  %acc.next = fadd double %acc, %dd
  %j.next = add nuw i64 %j, 1
  %cond.j = icmp ult i64 %j.next, %k
  br i1 %cond.j, label %inner, label %latch
latch:
  %i.next = add nuw i64 %i, 1
  %cond.i = icmp ult i64 %i.next, %n
  br i1 %cond.i, label %outer, label %done
done:
  ret double %acc.next
}
`

func TestReloadsThroughLoadedPointers(t *testing.T) {
	t.Parallel()
	m := parseIR(t, loadedBasesIR)
	d := newDiffer(m, Options{})
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, m.Funcs[0], []activity.Activity{activity.Const, activity.Dup, activity.Const, activity.Const}, true, false, false, "grad_cost")
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range r.cfg.Loops {
		if lc := r.loops[l]; lc != nil {
			for _, b := range requestedFields(lc) {
				if b.elem.String() == "double" {
					t.Errorf("loop %s caches a double per iteration; nothing writes memory, so the loads are repeated", l.Header.Ident())
				}
			}
		}
	}
}

// The same in C++ as clients write it (std::vector members), run at every
// level against central differences; and a function whose reads through
// one vector's data pointer are overwritten through another's that is the
// same vector at run time: those loads are still cached.
func TestReloadsThroughLoadedPointersRun(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + `
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
struct Points { int n, d; std::vector<double> x; };
__attribute__((noinline)) double cost(const Points &p, const std::vector<double> &c, int k) {
	double s = 0;
	for (int i = 0; i < p.n; i++) {
		double best = 0;
		for (int j = 0; j < k; j++) {
			double e = 0;
			for (int l = 0; l < p.d; l++) {
				double diff = p.x[i * p.d + l] - c[j * p.d + l];
				e += diff * diff;
			}
			best = j == 0 ? e : std::min(best, e);
		}
		s += best;
	}
	return s;
}
// dst and src are the same vector in the test: each step reads src[i] and
// then overwrites it through dst.
__attribute__((noinline)) double smooth(std::vector<double> &dst, const std::vector<double> &src) {
	double s = 0;
	for (int r = 0; r < 3; r++)
		for (size_t i = 0; i + 1 < src.size(); i++) {
			double a = src[i], b = src[i + 1];
			s += a * a * b;
			dst[i] = std::sin(a) + 0.5 * b;
		}
	return s;
}
static Points pts;
static double costAt(double *x, int n) { return cost(pts, std::vector<double>(x, x + n), n / pts.d); }
static double smoothAt(double *x, int n) { std::vector<double> v(x, x + n); return smooth(v, v); }
int main() {
	pts.n = 7; pts.d = 3;
	for (int i = 0; i < pts.n * pts.d; i++) pts.x.push_back(std::sin(1.7 * i));
	const int K = 4, N = K * 3;
	std::vector<double> c(N), dc(N, 0.0);
	for (int i = 0; i < N; i++) c[i] = std::cos(0.9 * i + 0.3);
	__enzyme_autodiff<void>((void *)cost, enzyme_const, &pts, enzyme_dup, &c, &dc, enzyme_const, K);
	fdcheck("cost", costAt, c.data(), N, dc.data());
	std::vector<double> v(N), dv(N, 0.0), x(N);
	for (int i = 0; i < N; i++) x[i] = v[i] = 0.2 + 0.1 * i;
	__enzyme_autodiff<void>((void *)smooth, enzyme_dup, &v, &dv, enzyme_dup, &v, &dv);
	fdcheck("smooth", smoothAt, x.data(), N, dv.data());
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXXLinked(t, src, o)) })
	}
}
