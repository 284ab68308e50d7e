#include <math.h>
/* Rounding: its body's derivative is 0; the rules in snap.h say 1. */
double snap(double x) { return round(x); }
double halve(double x) { return round(x * 2) / 2; }
