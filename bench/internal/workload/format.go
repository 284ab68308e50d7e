package workload

import "fmt"

// Ratio formats the time of method a over method b, or "–" when either is
// missing.
func Ratio(c *Case, a, b string) string {
	ta, okA := c.Times[a]
	tb, okB := c.Times[b]
	if !okA || !okB {
		return "–"
	}
	return fmt.Sprintf("%.2f", ta.Seconds/tb.Seconds)
}

// TimeOf formats the time of method m, WRONG with its error when its
// gradient failed the check, or "–" when it was not measured.
func TimeOf(c *Case, m string) string {
	if e, bad := c.Wrong[m]; bad {
		return fmt.Sprintf("WRONG (rel. err %.2g)", e)
	}
	if t, ok := c.Times[m]; ok {
		return FormatSeconds(t.Seconds)
	}
	return "–"
}

// FormatSeconds formats a duration in the unit that suits it.
func FormatSeconds(s float64) string {
	switch {
	case s < 1e-6:
		return fmt.Sprintf("%.0f ns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.1f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.2f ms", s*1e3)
	}
	return fmt.Sprintf("%.2f s", s)
}
