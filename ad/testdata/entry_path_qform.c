/* The program of TestEntryPathQformRun (entrypath_test.go), compiled after loopRunPrelude and qformKernel. */
CALLEE(qform)
COPY64(qform)
COPY64(qform_callee)
int main(void) {
	static const int ds[] = {-1, 0, 1, 2, 3, 4, 5, 7, 8, 9};
	for (int k = 0; k < 10; k++) {
		D = ds[k], P = K = 2 + (D > 9);
		int n = 6 * (D > 0 ? D : 0) + 1;
		FDRUN(qform, n); FDRUN(qform_callee, n);
		printf("done d=%d\n", D);
	}
	return failures != 0;
}
