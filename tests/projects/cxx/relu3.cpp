// relu3 and square differentiated by gozyme from C++: the entry point is
// declared without extern "C" (so its name is mangled), the functions are
// template instantiations, and the results go through iostreams. Prints
// "name x derivative" per point; exits 1 on a mismatch.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <vector>

double __enzyme_autodiff(void *, ...) noexcept;

template <class T> T relu3(T x) { return x > 0 ? std::pow(x, T(3)) : T(0); }
template <class T> T square(T x) { return x * x; }

int main() {
    const std::vector<double> xs = {-2, -1, -0.5, 0.5, 1, 2, 3};
    bool ok = true;
    std::cout << std::setprecision(17);
    for (double x : xs) {
        double d3 = __enzyme_autodiff(reinterpret_cast<void *>(relu3<double>), x);
        double d2 = __enzyme_autodiff(reinterpret_cast<void *>(square<double>), x);
        std::cout << "relu3 " << x << ' ' << d3 << '\n' << "square " << x << ' ' << d2 << '\n';
        double w3 = x > 0 ? 3 * x * x : 0, w2 = 2 * x;
        ok = ok && std::fabs(d3 - w3) <= 1e-12 * std::fabs(w3) && std::fabs(d2 - w2) <= 1e-12 * std::fabs(w2);
    }
    return ok ? 0 : 1;
}
