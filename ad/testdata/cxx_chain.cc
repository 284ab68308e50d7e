/* cxxChain is a C++ energy over std::vector, differentiated in reverse
 * (TestCXX) and forward mode (TestForwardCXX).
 * (cxxChain in cxx_test.go) */
/* A chain of springs held in a std::vector that grows, is copied and iterated. */
struct Spring { double k, rest; };
__attribute__((noinline)) double chain(double *x, int n) {
	std::vector<double> pos;
	for (int i = 0; i < n; i++) pos.push_back(x[i]);
	std::vector<Spring> springs;
	for (int i = 0; i + 1 < n; i++) springs.push_back(Spring{1.0 + 0.1 * i, 0.5});
	std::vector<double> copy = pos;
	double e = 0;
	for (size_t i = 0; i < springs.size(); i++) {
		double d = copy[i + 1] - copy[i] - springs[i].rest;
		e += 0.5 * springs[i].k * d * d;
	}
	return e;
}
