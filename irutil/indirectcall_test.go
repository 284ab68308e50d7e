package irutil

import (
	"strings"
	"testing"
)

// indirectCallLines are lines IsIndirectCall must judge as the regular
// expression IndirectCall does: calls and invokes through local values,
// direct calls, the keywords inside names and strings, words that merely
// contain them, several keywords on a line, a '@' or a newline before the
// callee.
var indirectCallLines = []string{
	`  %3 = call double %2(double %x)`,
	`  %3 = tail call double %fp.1(double %x) #4`,
	`  call void %"quoted name"(i32 1)`,
	`  %5 = invoke i32 %4(i8* %p) to label %ok unwind label %lp`,
	`  %3 = call double @f(double %x)`,
	`  %3 = call double bitcast (void ()* @g to double (double)*)(double %x)`,
	`  %3 = call double (i8*, ...) %vf(i8* %p)`,
	`  %recall = load double (double)*, double (double)** %callx`,
	`  %3 = call double %2 (double %x)`,
	`  %x = fadd double %callee(, 1.0`,
	`callx %a(`,
	`xcall %a(`,
	`call %a(`,
	`invoke%a(`,
	`call`,
	`call %`,
	`call %(`,
	`call %a`,
	`call @x %a(`,
	"call \n %a(",
	`call _%a(`,
	`invoke_call %a(`,
	`call.invoke %b(`,
	`  store void ()* @call, void ()** %invoke(`,
	`call call @f %g(`,
	`xinvoke call %g(`,
	`é call %g(`,
	`callé %g(`,
	`  call void @llvm.memcpy(i8* %call(`,
	`%call = call i8* @malloc(i64 8)`,
	`%call = call i8* %malloc(i64 8)`,
	`call %a.b-$c_9(`,
	`call %@a(`,
	`call %%a(`,
}

func TestIsIndirectCallMatchesRegexp(t *testing.T) {
	lines := append([]string{}, indirectCallLines...)
	lines = append(lines, strings.Split(callSigSource, "\n")...)
	n := 0
	for _, l := range lines {
		want := IndirectCall.MatchString(l)
		if got := IsIndirectCall(l); got != want {
			t.Errorf("IsIndirectCall(%q) = %v, the regular expression says %v", l, got, want)
		}
		if want {
			n++
		}
	}
	if n < 8 {
		t.Fatalf("only %d of the lines are indirect calls", n)
	}
}

func FuzzIsIndirectCall(f *testing.F) {
	for _, l := range indirectCallLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if got, want := IsIndirectCall(l), IndirectCall.MatchString(l); got != want {
			t.Errorf("IsIndirectCall(%q) = %v, the regular expression says %v", l, got, want)
		}
	})
}
