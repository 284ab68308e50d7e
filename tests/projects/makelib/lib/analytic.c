#include "mathx.h"

double mathx_relu3_prime(double x) { return x > 0 ? 3 * x * x : 0; }

double mathx_square_prime(double x) { return 2 * x; }
