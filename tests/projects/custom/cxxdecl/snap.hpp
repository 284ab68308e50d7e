#ifndef SNAP_HPP
#define SNAP_HPP
// C++ names (mangled) for a rule given only in this header; def.cpp, which
// defines both, does not include it.
namespace q {
double snap_grad(double x, double d_ret);
__attribute__((enzyme("gradient", snap_grad))) double snap(double x);
}
#endif
