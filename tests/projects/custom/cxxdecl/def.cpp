#include <cmath>
int snap_grad_calls;
namespace q {
double snap(double x) { return std::round(x); }
double snap_grad(double, double d_ret) {
	snap_grad_calls++;
	return d_ret;
}
}
