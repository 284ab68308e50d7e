// C++ names in messages are demangled.
double mystery(double);
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);

namespace geo {
double area(double r) { return mystery(r) * r; }
} // namespace geo

int main() { return __enzyme_autodiff<double>((void *)geo::area, 1.0) > 0; }
