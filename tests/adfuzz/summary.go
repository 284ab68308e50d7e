package adfuzz

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Summary counts outcomes per class and level.
type Summary struct {
	Levels []string
	counts map[Class]map[string]int
}

// NewSummary is an empty summary over levels.
func NewSummary(levels []string) *Summary {
	return &Summary{Levels: levels, counts: map[Class]map[string]int{}}
}

// Add counts one outcome.
func (s *Summary) Add(class Class, level string) {
	if s.counts[class] == nil {
		s.counts[class] = map[string]int{}
	}
	s.counts[class][level]++
}

// Count is the number of outcomes of class at level.
func (s *Summary) Count(class Class, level string) int { return s.counts[class][level] }

// Failures is the number of outcomes that are not passes.
func (s *Summary) Failures() int {
	n := 0
	for c, m := range s.counts {
		if c != Pass {
			for _, v := range m {
				n += v
			}
		}
	}
	return n
}

// Write prints the table: one row per class that occurred, one column per
// level, and a total column.
func (s *Summary) Write(w io.Writer, classes []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"class"}
	for _, l := range s.Levels {
		head = append(head, "-O"+l)
	}
	fmt.Fprintln(tw, strings.Join(append(head, "total"), "\t")+"\t")
	for i, name := range classes {
		m := s.counts[Class(i)]
		if len(m) == 0 && Class(i) != Pass {
			continue
		}
		row, tot := []string{name}, 0
		for _, l := range s.Levels {
			row = append(row, fmt.Sprint(m[l]))
			tot += m[l]
		}
		fmt.Fprintln(tw, strings.Join(append(row, fmt.Sprint(tot)), "\t")+"\t")
	}
	tw.Flush()
}
