/* The program of TestAggregatePointersCXX (aggregates_test.go), compiled after cxxPrelude. */
#include <utility>
template <class T> struct Span {
	T *b, *e;
	T *begin() const { return b; }
	T *end() const { return e; }
	Span first(long k) const { return Span{b, b + k}; }
	Span drop(long k) const { return Span{b + k, e}; }
};
__attribute__((noinline)) Span<double> whole(double *x, int n) { return Span<double>{x, x + n}; }
__attribute__((noinline)) std::pair<double *, double *> ends(Span<double> s) { return {s.b, s.e - 1}; }
__attribute__((noinline)) double spans(double *x, int n) {
	Span<double> s = whole(x, n);
	double acc = 0;
	for (double &v : s.first(n / 2)) acc += v * v;
	for (double &v : s.drop(n / 2)) acc += std::sin(v) * acc;
	std::pair<double *, double *> p = ends(s);
	auto q = p;
	std::swap(q.first, q.second);
	return acc + *p.first * *q.first + *p.second;
}
int main() {
	const int N = 8;
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.2 + 0.15 * i;
	__enzyme_autodiff((void *)spans, enzyme_dup, x, dx, enzyme_const, N);
	fdcheck("spans", spans, x, N, dx);
	return failures != 0;
}
