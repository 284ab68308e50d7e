package wrapper

import (
	"reflect"
	"regexp"
	"testing"
)

// includeLineRE is the regular expression includeDirectives stands for.
var includeLineRE = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*(?:include(?:_next)?|import)[ \t]*(?:[<"]([^>"\n]+)[>"]|([A-Za-z_]))`)

func includeDirectivesRE(data []byte) []includeDirective {
	var out []includeDirective
	for _, m := range includeLineRE.FindAllSubmatch(data, -1) {
		if len(m[2]) > 0 {
			out = append(out, includeDirective{computed: true})
		} else {
			out = append(out, includeDirective{name: string(m[1])})
		}
	}
	return out
}

var includeTexts = []string{
	"#include <stdio.h>\n#include \"a.h\"\n",
	"  #  include_next <api/outer.h>\n\t#import <x.h>\n",
	"#include LUA_USER_H\n#include_next\n#include_nextfoo\n#includes <x>\n",
	"#include <>\n#include_next <>\n#include \"a.h\n\"\n#include <a\"b>\n",
	"x #include <no.h>\n/* #include <c.h> */\n#define X 1 # include <y.h>\n",
	"#include<tight.h>\r\n#\r\ninclude <not.h>\n#",
	"# if 0\n# include \"in-if.h\"\n# endif\n#pragma once\n#include_next",
}

// includeDirectives reads include lines as the regular expression it
// replaces does.
func TestIncludeDirectives(t *testing.T) {
	t.Parallel()
	for _, text := range includeTexts {
		got, want := includeDirectives([]byte(text)), includeDirectivesRE([]byte(text))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %v\nwant %v", text, got, want)
		}
	}
}

func FuzzIncludeDirectives(f *testing.F) {
	for _, text := range includeTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, want := includeDirectives([]byte(text)), includeDirectivesRE([]byte(text))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
		}
	})
}
