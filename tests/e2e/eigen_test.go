package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eigenHeaders is where Debian's libeigen3-dev puts Eigen.
const eigenHeaders = "/usr/include/eigen3"

// TestEigenSolve builds tests/projects/eigen/solve.cpp, a client of
// Eigen's dense decompositions, with gozyme-c++ for each decomposition,
// size and level below and checks its gradient against central
// differences (the program does). With -short, the cases that once
// stopped the link only: LLT at -O0 (Eigen's aligned stack blocks, a
// pointer masked to 16 bytes; its packets broadcast by pshufd) and
// PartialPivLU at -O0 (std::swap<int> on the permutation's indices).
// Skipped where Eigen is not installed (apt-get install libeigen3-dev).
func TestEigenSolve(t *testing.T) {
	setup(t)
	if _, err := os.Stat(filepath.Join(eigenHeaders, "Eigen", "Dense")); err != nil {
		t.Skip("Eigen is not installed (libeigen3-dev)")
	}
	type eigenCase struct {
		dec   int // solve.cpp's DEC
		dyn   bool
		opt   string
		short bool // also with -short
	}
	cases := []eigenCase{
		{dec: 1, opt: "-O0", short: true},
		{dec: 2, dyn: true, opt: "-O0", short: true},
		{dec: 0, opt: "-O0"},
		{dec: 0, dyn: true, opt: "-O2"},
		{dec: 1, dyn: true, opt: "-O2"},
		{dec: 2, dyn: true, opt: "-O2"},
		{dec: 3, opt: "-O2"},
		{dec: 3, dyn: true, opt: "-O0"},
		{dec: 4, dyn: true, opt: "-O2"},
	}
	names := []string{"LDLT", "LLT", "PartialPivLU", "HouseholderQR", "ColPivHouseholderQR"}
	dir := copyProject(t, "eigen")
	env := toolEnv()
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		name := names[c.dec]
		args := []string{c.opt, "-I", eigenHeaders, fmt.Sprintf("-DDEC=%d", c.dec)}
		if c.dyn {
			name += "-dynamic"
			args = append(args, "-DDYN", "-DNN=6")
		}
		name += c.opt
		t.Run(name, func(t *testing.T) {
			exe := filepath.Join(dir, name)
			run(t, dir, env, tool("gozyme-c++"), append(args, "solve.cpp", "-o", exe)...)
			if out := run(t, dir, env, exe); strings.TrimSpace(out) != "ok" {
				t.Errorf("%s", out)
			}
		})
	}
}
