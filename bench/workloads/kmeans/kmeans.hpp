// k-means (GradBench's kmeans): the cost of k centroids c (k x d) on n points
// p (n x d) is sum_i min_j |p_i - c_j|^2. The eval needs its gradient J and
// the diagonal of its Hessian H (a Newton step J / H); the Hessian is
// diagonal almost everywhere (each point pulls on its nearest centroid
// only), so H is the Hessian-vector product with a vector of ones. Client
// style: a struct of std::vectors, a template over the scalar type, a lambda
// for the squared distance, std::min.
#ifndef KMEANS_HPP
#define KMEANS_HPP
#include <algorithm>
#include <cstddef>
#include <vector>

struct KMeansInput {
	int k, n, d;
	std::vector<double> points; // n x d
};

template <typename T> T kmeans_cost(const KMeansInput &in, const std::vector<T> &centroids) {
	int d = in.d;
	auto sqdist = [&](int i, int j) {
		T s = 0;
		for (int l = 0; l < d; l++) {
			T diff = in.points[i * d + l] - centroids[j * d + l];
			s += diff * diff;
		}
		return s;
	};
	T cost = 0;
	for (int i = 0; i < in.n; i++) {
		T best = sqdist(i, 0);
		for (int j = 1; j < in.k; j++) best = std::min(best, sqdist(i, j));
		cost += best;
	}
	return cost;
}

// The ADOL-C version (adolc.cpp): tape at c, then the gradient and the
// Hessian-vector product with ones on the tape.
void adolc_kmeans_tape(int tag, const KMeansInput &in, const std::vector<double> &c);
void adolc_kmeans_dir(int tag, const std::vector<double> &c, std::vector<double> &out);
#endif
