package ad

import (
	"os"
	"strings"
	"testing"
)

// Forward mode (single and batch) end to end on C++ containers and
// templates, and on loops LLVM vectorizes at -O3.

func TestForwardCXX(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + `
extern int enzyme_width;
double __enzyme_fwddiff(void *, ...);
struct Lanes { double d[2]; };
Lanes __enzyme_fwddiff2(void *, ...);
template <class R, class... T> R __enzyme_fwddiff_t(void *, T...);
struct Three { double d[3]; };
/* Directional derivative of f at x along v, by central differences. */
template <class F> static double fd(F f, const double *x, const double *v, int n) {
	std::vector<double> p(x, x + n), m(x, x + n);
	for (int i = 0; i < n; i++) { p[i] += 1e-6 * v[i]; m[i] -= 1e-6 * v[i]; }
	return (f(p.data(), n) - f(m.data(), n)) / 2e-6;
}

` + cxxChain(t) + `
template <class T, size_t N> struct Poly {
	std::array<T, N> c;
	T operator()(T x) const { T s = 0; for (size_t i = N; i-- > 0;) s = s * x + c[i]; return s; }
};
template <class T> __attribute__((noinline)) T fit(T *x, int n) {
	Poly<T, 3> p{{x[0], x[1], x[2]}};
	auto sq = [](T v) { return v * v; };
	T s = 0;
	for (int i = 3; i < n; i++) s += sq(p(T(0.1) * i) - x[i]);
	std::array<T, 4> a{};
	for (int i = 0; i < 4; i++) a[i] = std::sin(x[i]);
	return s + *std::max_element(a.begin(), a.end());
}

/* A vector-valued function: a JVP through std::vector temporaries. */
__attribute__((noinline)) void smooth(double *out, const double *x, int n) {
	std::vector<double> t(x, x + n);
	std::transform(t.begin(), t.end(), t.begin(), [](double v) { return std::exp(-v * v); });
	for (int i = 0; i < n; i++) out[i] = t[i] + 0.5 * t[(i + 1) % n] * x[i];
}

/* Forward over reverse on C++: Hessian-vector products of chain. */
__attribute__((noinline)) void grad_chain(double *x, double *dx, int n) {
	__enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, n);
}
void __enzyme_fwddiff_void(void *, ...);

int main() {
	const int N = 7;
	double x[N], v[N], w[N];
	for (int i = 0; i < N; i++) { x[i] = 0.2 + 0.31 * i - 0.02 * i * i; v[i] = std::cos(1.3 * i); w[i] = 0.1 * i - 0.3; }
	check("chain", __enzyme_fwddiff((void *)chain, enzyme_dup, x, v, enzyme_const, N), fd(chain, x, v, N));
	/* A template instantiation passed directly, as C++ callers do. */
	check("fit<double>", __enzyme_fwddiff((void *)fit<double>, enzyme_dup, x, v, enzyme_const, N), fd(fit<double>, x, v, N));
	/* Enzyme's C++ template entry point, three lanes returned in memory. */
	Three t3 = __enzyme_fwddiff_t<Three>((void *)fit<double>, enzyme_width, 3, enzyme_dup, x, v, w, v, enzyme_const, N);
	check("fit<double> template lane 1", t3.d[1], fd(fit<double>, x, w, N));
	check("fit<double> template lane 2", t3.d[2], fd(fit<double>, x, v, N));
	Lanes b = __enzyme_fwddiff2((void *)chain, enzyme_width, 2, enzyme_dup, x, v, w, enzyme_const, N);
	check("chain lane 0", b.d[0], fd(chain, x, v, N));
	check("chain lane 1", b.d[1], fd(chain, x, w, N));
	double out[N], dout[N], p[N], m[N], fp[N], fm[N];
	__enzyme_fwddiff((void *)smooth, enzyme_dup, out, dout, enzyme_dup, x, v, enzyme_const, N);
	for (int i = 0; i < N; i++) { p[i] = x[i] + 1e-6 * v[i]; m[i] = x[i] - 1e-6 * v[i]; }
	smooth(fp, p, N);
	smooth(fm, m, N);
	for (int i = 0; i < N; i++) check("smooth jvp", dout[i], (fp[i] - fm[i]) / 2e-6);
	double dx[N] = {}, hv[N] = {}, gp[N] = {}, gm[N] = {};
	__enzyme_fwddiff_void((void *)grad_chain, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
	grad_chain(p, gp, N);
	grad_chain(m, gm, N);
	for (int i = 0; i < N; i++) check("chain Hv", hv[i], (gp[i] - gm[i]) / 2e-6, 1e-5);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildCXX(t, src, "2")) })
}

func TestForwardSIMD(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + `
extern int enzyme_width;
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[4]; } vec4;
vec4 __enzyme_fwddiff4(void *, ...);
` + simdKernels(t) + `
__attribute__((noinline)) void axpy(double *out, const double *x, const double *y, int n) {
	for (int i = 0; i < n; i++) out[i] = x[i] * y[i] + 3 * x[i];
}
__attribute__((noinline)) void scale(double *out, const double *x, int n) {
	for (int i = 0; i < n; i++) if (x[i] > 0.5) out[i] = x[i] * x[i] * 3;
}
static double fd(double (*f)(double *, int), const double *x, const double *v, int n) {
	double p[64], m[64];
	for (int i = 0; i < n; i++) { p[i] = x[i] + 1e-6 * v[i]; m[i] = x[i] - 1e-6 * v[i]; }
	return (f(p, n) - f(m, n)) / 2e-6;
}
/* FWDCHECK(f): the directional derivative of f along v, single and as lane 2 of a batch. */
#define FWDCHECK(f) do { \
		check(#f, __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N), fd(f, x, v, N), 1e-6); \
		vec4 b = __enzyme_fwddiff4((void *)f, enzyme_width, 4, enzyme_dup, x, w, w, v, w, enzyme_const, N); \
		check(#f " lane 2", b.d[2], fd(f, x, v, N), 1e-6); \
		check(#f " lane 3", b.d[3], fd(f, x, w, N), 1e-6); \
	} while (0)
int main(void) {
	enum { N = 37 };
	double x[N], v[N], w[N], y[N];
	for (int i = 0; i < N; i++) {
		x[i] = 0.1 + 0.05 * i - 0.003 * i * i;
		v[i] = sin(0.7 * i);
		w[i] = 1;
		y[i] = cos(0.3 * i);
	}
	FWDCHECK(dotv);
	FWDCHECK(maxv);
	FWDCHECK(prodv);
	double out[N], dout[N], dy[N] = {0};
	__enzyme_fwddiff((void *)axpy, enzyme_dup, out, dout, enzyme_dup, x, v, enzyme_const, y, enzyme_const, N);
	for (int i = 0; i < N; i++) check("axpy", dout[i], v[i] * (y[i] + 3), 1e-12);
	memset(dout, 0, sizeof dout);
	__enzyme_fwddiff((void *)scale, enzyme_dup, out, dout, enzyme_dup, x, v, enzyme_const, N);
	for (int i = 0; i < N; i++) check("scale", dout[i], x[i] > 0.5 ? 6 * x[i] * v[i] : 0, 1e-12);
	(void)dy;
	return failures != 0;
}
`
	variants := [][]string{{"-ffast-math"}}
	if cpu, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(cpu), " avx2") {
		variants = append(variants, []string{"-ffast-math", "-mavx2"})
	}
	for _, flags := range variants {
		t.Run(strings.Join(flags, ""), func(t *testing.T) { run(t, buildC(t, src, "3", flags...)) })
	}
}
