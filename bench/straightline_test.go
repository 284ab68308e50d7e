package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStraightLineReport checks the straight-line link's report from
// made-up links: the growth of CPU time per statement from the smallest N
// to the largest, the verdict at N = 20000 on each side of the goal, and
// the chart written beside the report.
func TestStraightLineReport(t *testing.T) {
	links := []straightLink{
		{n: 1000, wall: 2, cpu: 2.5, codegen: 1, peak: 100},
		{n: 20000, wall: 70, cpu: 75, codegen: 30, peak: 2000},
	}
	md := formatStraightLinks(links)
	for _, want := range []string{
		"| 20000 |",
		"CPU time per statement at N = 20000 over N = 1000: 1.50x",
		"under 60 CPU seconds: MISSED by 1.25x",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	links[1].cpu = 50
	if md := formatStraightLinks(links); !strings.Contains(md, "under 60 CPU seconds: met") {
		t.Errorf("a 50 s link at N = 20000 does not meet the goal:\n%s", md)
	}
	dir := t.TempDir()
	chart, err := straightLineChart(links, dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(chart); err != nil || fi.Size() == 0 || filepath.Dir(chart) != dir {
		t.Errorf("chart %s not written: %v", chart, err)
	}
}
