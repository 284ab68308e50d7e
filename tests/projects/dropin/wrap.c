/* With --wrap=sq, calls of sq from other objects come here. */
double __real_sq(double x);
double __wrap_sq(double x) { return 10 * __real_sq(x); }
