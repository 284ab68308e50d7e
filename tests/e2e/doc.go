// Package e2e holds gozyme's end-to-end tests: real projects under
// tests/projects (Makefile, CMake) and tests/cgo-sqlite (cgo) built with
// gozyme-cc, gozyme-c++ and gozyme-ld, run, and their derivatives compared
// with analytic values. TestMain builds the three commands once into a
// temporary directory; run with `go test ./tests/e2e` (clang-14, lld-14,
// cmake and gcc must be installed: `make deps`).
package e2e
