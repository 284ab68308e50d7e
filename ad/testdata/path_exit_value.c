/* Driver of pdxIR's pdx_ir (TestPathDecisionExitValueRun, pathdecide_test.go;
 * compiled after loopRunPrelude, linked with the IR): gradients as root
 * and as a split callee against central differences. */
double pdx_ir(double *x, long n);
static double pdx(double *x, int n) { return pdx_ir(x, n); }
CALLEE(pdx)
COPY64(pdx)
COPY64(pdx_callee)
int main(void) {
	FDRUN(pdx, 1); FDRUN(pdx, 2); FDRUN(pdx, 3); FDRUN(pdx, 4); FDRUN(pdx, 5); FDRUN(pdx, 6); FDRUN(pdx, 9);
	FDRUN(pdx_callee, 4); FDRUN(pdx_callee, 6); FDRUN(pdx_callee, 9);
	return failures != 0;
}
