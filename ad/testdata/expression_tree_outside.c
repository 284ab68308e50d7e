/* The program of TestExpressionTreeOutside (dispatch_test.go): the
   interpreter of expression_tree.c given a node whose function, fma, comes
   from the C library through dlsym: no function of the program has its
   type, so the derivative stops the program where it reaches the call.
   The test puts expression_tree.c, its main renamed, before this. */
#include <dlfcn.h>

int main(void) {
	vars v = {0.7, 1.3}, dv = {0, 0};
	const void *fma3 = dlsym(RTLD_DEFAULT, "fma");
	node *X = mk(VAR, 0, &v.x, 0, 0, 0), *Y = mk(VAR, 0, &v.y, 0, 0, 0);
	node *e = mk(FN, 3, fma3, 0, X, Y);
	e->args[2] = X;
	node *dX = mk(VAR, 0, &dv.x, 0, 0, 0), *dY = mk(VAR, 0, &dv.y, 0, 0, 0);
	node *de = mk(FN, 3, fma3, 0, dX, dY);
	de->args[2] = dX;
	printf("primal %g\n", eval(e));
	fflush(stdout);
	__enzyme_autodiff((void *)f, enzyme_dup, e, de, enzyme_dup, &v, &dv);
	printf("gradient %g %g\n", dv.x, dv.y);
	return 0;
}
