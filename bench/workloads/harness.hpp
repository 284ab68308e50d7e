// The harness of the client-style workloads (bench/workloads/<name>/main.cpp):
// the C harness (harness.h: checks before timing, TIME/WRONG lines, minimum
// over batches) plus what C++ code written for Enzyme declares itself: the
// templated entry points, called as client code calls them.
#ifndef GOZYME_HARNESS_HPP
#define GOZYME_HARNESS_HPP
#include <cstddef>
#include <vector>

#include "harness.h"

template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

// uniform_vector is n values of uniform() times scale.
static inline std::vector<double> uniform_vector(std::size_t n, double scale = 1) {
	std::vector<double> v(n);
	for (double &x : v) x = scale * uniform();
	return v;
}

// test_mode says whether main was asked for the quick correctness checks
// (go test), which print OK or FAILED and time nothing.
static inline bool test_mode(int argc, char **argv) { return argc > 1 && strcmp(argv[1], "test") == 0; }

// finish prints the test mode's verdict and gives main's exit status.
static inline int finish(bool testing, bool ok) {
	if (testing) puts(ok ? "OK" : "FAILED");
	return ok ? 0 : 1;
}
#endif
