package ad

import "testing"

// buildCXXLinked is buildCLinked for C++: the frontend's IR optimized once
// before AD, as gozyme-c++'s link optimizes it.
func buildCXXLinked(t *testing.T, src, level string) string {
	t.Helper()
	exe, err := tryBuildOpt(t, "prog.cc", src, level, linkedLoops, "-std=c++17", "-Xclang", "-disable-llvm-passes")
	if err != nil {
		t.Fatalf("-O%s: %v", level, err)
	}
	return exe
}

// TestVectorFromConstRangeRun: a std::vector built from a range of an
// inactive one (an input struct's initial state, copied and then updated
// from active parameters), as client code writes it. The copy's end of
// storage is a phi of null + 0 (empty) and the allocation's end: the shadow
// of the null side is null + 0 itself.
func TestVectorFromConstRangeRun(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + `
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
struct Input { int n; std::vector<double> init; };
template <typename T> __attribute__((noinline)) void step(int n, std::vector<T> &s, const std::vector<T> &w) {
	for (int i = 0; i < n; i++) s[i] = std::tanh(s[i] * w[i] + w[(i + 1) % n]);
}
template <typename T> T energy(const Input &in, const std::vector<T> &w) {
	std::vector<T> s(in.init.begin(), in.init.end());
	T total = 0;
	for (int t = 0; t < 3; t++) {
		step(in.n, s, w);
		for (int i = 0; i < in.n; i++) total += s[i] * s[i];
	}
	return total;
}
static Input input;
static double value(double *x, int n) { return energy(input, std::vector<double>(x, x + n)); }
int main() {
	const int N = 5;
	input.n = N;
	for (int i = 0; i < N; i++) input.init.push_back(0.3 - 0.1 * i);
	std::vector<double> w(N), dw(N, 0.0);
	for (int i = 0; i < N; i++) w[i] = 0.5 + 0.2 * i;
	__enzyme_autodiff<void>((void *)energy<double>, enzyme_const, &input, enzyme_dup, &w, &dw);
	fdcheck("energy", value, w.data(), N, dw.data());
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXXLinked(t, src, o)) })
	}
}
