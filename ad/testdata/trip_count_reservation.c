/* The program of TestTripCountReservation (tripcount_test.go), compiled after memoryPrelude and tripLoops. */
int main(void) {
	enum { N = 9 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(shapes_copy);
	GRADCHECK(nests_copy);
	GRADCHECK(exits_copy);
	return failures != 0;
}
