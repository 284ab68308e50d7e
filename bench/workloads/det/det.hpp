// Determinant by expansion by minors (GradBench's det, from cmpad's
// det_by_minor): the determinant of an ell x ell matrix (row-major), expanded
// along its first remaining row, recursively. The rows and columns still in
// a minor are linked lists in two index vectors that the recursion edits and
// restores, as cmpad's algorithm does. Gradient with respect to every entry.
#ifndef DET_HPP
#define DET_HPP
#include <cstddef>
#include <vector>

// det_of_minor is the determinant of the n x n minor of a (m x m) made of
// the rows linked from r[m] and the columns linked from c[m] (r[i] is the
// row after row i; m ends a list).
template <typename T>
T det_of_minor(const std::vector<T> &a, std::size_t m, std::size_t n, std::vector<std::size_t> &r,
               std::vector<std::size_t> &c) {
	std::size_t row = r[m];
	if (n == 1) return a[row * m + c[m]];
	r[m] = r[row]; // the minors leave out this row
	T det = 0;
	bool plus = true;
	std::size_t prev = m;
	for (std::size_t k = 0, j = c[m]; k < n; k++, prev = j, j = c[j]) {
		c[prev] = c[j]; // and column j
		T minor = det_of_minor(a, m, n - 1, r, c);
		c[prev] = j;
		T term = a[row * m + j] * minor;
		det = plus ? det + term : det - term;
		plus = !plus;
	}
	r[m] = row;
	return det;
}

template <typename T> T det_by_minor(const std::vector<T> &a, std::size_t m) {
	std::vector<std::size_t> r(m + 1), c(m + 1);
	for (std::size_t i = 0; i < m; i++) r[i] = c[i] = i + 1;
	r[m] = c[m] = 0;
	return det_of_minor(a, m, m, r, c);
}

// The ADOL-C version (adolc.cpp): tape at a, then gradients on the tape.
void adolc_det_tape(int tag, const std::vector<double> &a, std::size_t m);
void adolc_det_grad(int tag, const std::vector<double> &a, std::vector<double> &g);
#endif
