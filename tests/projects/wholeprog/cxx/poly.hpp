#pragma once
#include <cmath>
// Instantiated in both a.cpp and b.cpp: linkonce_odr definitions in each object.
template <class T> T poly(T x) { return x * x * x - 2 * x + std::sin(x); }
double energy(double x);
