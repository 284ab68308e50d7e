/* The program of TestCopyBeyondKnownFloatsStops (retype_test.go), compiled after bitsPrelude. */
__attribute__((noinline)) void copyn(char *dst, const char *src, int n) { memcpy(dst, src, n); }
double beyond(double x, int n) {
	double in[4] = {x, x * x, x, x};
	char buf[64] = {0}, out[64];
	copyn(buf, (char *)in, 32);
	copyn(out, buf, n);
	double y; memcpy(&y, out + 8, 8);
	return y;
}
int main(int argc, char **argv) {
	int n = argc > 1 ? 40 : 32;
	double d = __enzyme_autodiff((void *)beyond, 0.5, enzyme_const, n);
	CHECK("within", d, 1.0);
	return failures != 0;
}
