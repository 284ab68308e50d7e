// A root in an internal function, called from a captureless lambda kept in
// a table by an internal harness (as benchmark clients do); the function
// to differentiate is internal too.
#include <algorithm>
#include <vector>
#include "check.hpp"

namespace {

struct Case {
	std::vector<double> x, dx;
};

double objective(const std::vector<double> *x) {
	double s = 0;
	for (size_t i = 0; i < x->size(); i++)
		s += std::exp(0.1 * (*x)[i]) * (*x)[(i + 1) % x->size()];
	return s;
}

void grad(Case *c) {
	std::fill(c->dx.begin(), c->dx.end(), 0.0);
	__enzyme_autodiff<void>((void *)objective, enzyme_dup, &c->x, &c->dx);
}

int run(int n) {
	Case c;
	for (int i = 0; i < n; i++)
		c.x.push_back(0.5 + 0.25 * i);
	c.dx.resize(n);
	void (*methods[])(void *) = {[](void *a) { grad(static_cast<Case *>(a)); }};
	methods[0](&c);
	return check("lambdaroot", c.x.data(), c.dx.data(), n, [n](const double *p) {
		std::vector<double> v(p, p + n);
		return objective(&v);
	});
}

} // namespace

int main() { return run(5) | run(9); }
