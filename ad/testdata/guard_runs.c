/* guardRuns checks the gradients of guardKernels against central
 * differences at m = 0..9, combined and as callees.
 * (guardRuns in entryguard_test.go; compiled after loopRunPrelude, guardKernels) */
CALLEE(vlast)
CALLEE(vpair)
COPY64(vlast)
COPY64(vpair)
COPY64(vshift)
COPY64(vcond)
COPY64(vneg)
COPY64(vtail)
COPY64(vlast_callee)
COPY64(vpair_callee)
int main(void) {
	for (int n = 1; n < 20; n++) {
		FDRUN(vlast, n); FDRUN(vpair, n); FDRUN(vshift, n); FDRUN(vcond, n); FDRUN(vneg, n); FDRUN(vtail, n);
		FDRUN(vlast_callee, n); FDRUN(vpair_callee, n);
	}
	return failures != 0;
}
