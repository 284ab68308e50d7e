/* The program of TestRecomputedCountRun (recomputedcount_test.go), compiled after particleC and snapshotNests. */
int main(void) {
	static const int ns[] = {1, 2, 3, 8};
	for (int k = 0; k < 4; k++) {
		CHECK_PARTICLES(particles, ns[k]);
		CHECK_PARTICLES(deep, ns[k]);
		CHECK_PARTICLES(deep_callee, ns[k]);
	}
	return failures != 0;
}
