/* The program of TestCallABI (abi_test.go), compiled after checkPrelude. */
extern int enzyme_const, enzyme_out;   /* declared: defined in no translation unit */
int enzyme_dupnoneed = 7;              /* defined by the user, as some projects do */
typedef struct { double dx, dz; } Grad2;
double __enzyme_autodiff(void *, ...);
Grad2 __enzyme_autodiff2(void *, ...);
void __enzyme_autodiff_void(void *, ...);

__attribute__((noinline)) double f3(double x, double y, double z) { return x * y * y + sin(z) * x; }
__attribute__((noinline)) double scaled(double x, int k) { return k * x * x; }
__attribute__((noinline)) float ff(float x) { return x * x * x; }
__attribute__((noinline)) double g1(double x) { return exp(x); }
__attribute__((noinline)) double g2(double x) { return x * x * x; }

/* printf of active values, and a function marked inactive, stay in the forward sweep. */
static int calls;
__attribute__((noinline)) void note(double v) { calls++; }
void *__enzyme_inactivefn[] = {(void *)note};
__attribute__((noinline)) double chatty(double x) {
	double y = x * x;
	printf("y = %g\n", y);
	note(y);
	return y * x;
}

int main(int argc, char **argv) {
	(void)argv;
	double x = 1.3, y = 0.7, z = 0.4;
	/* Markers: y constant; x and z enzyme_out; derivatives returned as a struct. */
	Grad2 g = __enzyme_autodiff2((void *)f3, enzyme_out, x, enzyme_const, y, enzyme_out, z);
	CHECK("f3 dx", g.dx, y * y + sin(z));
	CHECK("f3 dz", g.dz, cos(z) * x);
	/* Unmarked defaults: a double is enzyme_out, an int is constant. */
	CHECK("scaled dx", __enzyme_autodiff((void *)scaled, x, 3), 6 * x);
	/* float in, float out through C's default promotions. */
	CHECK("float", __enzyme_autodiff((void *)ff, (float)x), 3 * (float)x * (float)x);
	/* Returning nothing: still runs. */
	__enzyme_autodiff_void((void *)g1, x);
	/* A function chosen at run time (select at -O2, a local variable at -O0). */
	double (*pick)(double) = argc > 5 ? g1 : g2;
	CHECK("dispatch", __enzyme_autodiff((void *)pick, x), argc > 5 ? exp(x) : 3 * x * x);
	void *fp = (void *)g1;
	if (argc == 1) fp = (void *)g2;
	CHECK("phi dispatch", __enzyme_autodiff(fp, x), argc == 1 ? 3 * x * x : exp(x));
	CHECK("chatty", __enzyme_autodiff((void *)chatty, x), 3 * x * x);
	CHECK("inactive fn ran in the forward sweep", calls, 1);
	(void)enzyme_dupnoneed;
	return failures != 0;
}
