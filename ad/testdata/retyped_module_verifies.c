/* The program of TestRetypedModuleVerifies (retype_ir_test.go), compiled after bitsPrelude. */
__attribute__((noinline)) unsigned long long tobits(double x) { unsigned long long u; memcpy(&u, &x, 8); return u; }
__attribute__((noinline)) double frombits(unsigned long long u) { double x; memcpy(&x, &u, 8); return x; }
double viamemcpy(double x) { return frombits(tobits(x * x)) * 3; }
int main(void) { printf("%g\n", __enzyme_autodiff((void *)viamemcpy, 1.5)); return 0; }
