/* pathRuns differentiates pathKernels with m = n/2 below, at and above the
 * vector width (4 doubles at -O2: VF 2, interleaved twice), combined and
 * as callees.
 * (pathRuns in pathdecide_test.go; compiled after loopRunPrelude, pathKernels) */
CALLEE(vsteps)
CALLEE(vlast)
CALLEE(vsum)
CALLEE(vdata)
CALLEE(vnest)
COPY64(vnest)
COPY64(vnest_callee)
COPY64(vsteps)
COPY64(vlast)
COPY64(vlast_callee)
COPY64(vsum)
COPY64(vdata)
COPY64(vsteps_callee)
COPY64(vsum_callee)
COPY64(vdata_callee)
#define ALL(n) FDRUN(vsteps, n); FDRUN(vsum, n); FDRUN(vnest, n); FDRUN(vdata, n); FDRUN(vlast, n); \
	FDRUN(vlast_callee, n); FDRUN(vsteps_callee, n); FDRUN(vsum_callee, n); FDRUN(vnest_callee, n); FDRUN(vdata_callee, n)
int main(void) {
	ALL(2); ALL(4); ALL(6); ALL(8); ALL(10); ALL(16); ALL(18); ALL(27);
	return failures != 0;
}
