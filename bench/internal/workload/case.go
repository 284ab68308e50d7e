// Package workload holds what bench (make bench) and bench/remote share
// about the benchmark workloads (bench/workloads): how each is built, how
// its TIME and WRONG lines are read, and the goals each figure is judged by.
package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Timing is one measured method of one case.
type Timing struct {
	Seconds float64
	RelErr  float64 // against the hand-written gradient
}

// Case is every method measured for one case ("gmm(d=2,k=5)").
type Case struct {
	Workload, Name string
	Times          map[string]Timing  // F, J, J-pre, hand, adolc, adolc-tape, fd, rof
	Wrong          map[string]float64 // methods whose gradient failed the check
	Client         bool               // a client-style C++ workload (main.cpp)
}

// Parse reads the TIME and WRONG lines a workload printed, adding suffix
// to each method; byName and order collect the cases, new ones appended.
func Parse(workload string, out []byte, suffix string, byName map[string]*Case, order *[]*Case) error {
	get := func(name string) *Case {
		if c := byName[name]; c != nil {
			return c
		}
		c := &Case{Workload: workload, Name: name, Times: map[string]Timing{}, Wrong: map[string]float64{}}
		byName[name] = c
		*order = append(*order, c)
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 5 && f[0] == "TIME":
			s, err1 := strconv.ParseFloat(f[3], 64)
			e, err2 := strconv.ParseFloat(f[4], 64)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("workload %s: bad line %q", workload, sc.Text())
			}
			get(f[1]).Times[f[2]+suffix] = Timing{s, e}
		case len(f) == 4 && f[0] == "WRONG":
			e, _ := strconv.ParseFloat(f[3], 64)
			get(f[1]).Wrong[f[2]+suffix] = e
		}
	}
	return nil
}
