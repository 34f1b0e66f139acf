package lazyre

import "testing"

// An expression is compiled once, on first use, and answers as regexp does.
func TestLazyAnswersAsRegexp(t *testing.T) {
	t.Parallel()
	re := New(`(\w+)@(\w+)`)
	if n := CompileAll(); n < 1 {
		t.Fatalf("CompileAll counted %d expressions", n)
	}
	if !re.MatchString("me@host") || re.FindStringSubmatch("me@host")[2] != "host" || re.ReplaceAllString("a@b", "$2") != "b" {
		t.Error("a lazy expression does not answer as its regexp")
	}
}

// A mistake in an expression shows in CompileAll, not at some later use.
func TestCompileAllFindsAMistake(t *testing.T) {
	New(`(unclosed`)
	defer func() {
		if recover() == nil {
			t.Error("CompileAll passed over an expression that does not compile")
		}
		mu.Lock()
		all = all[:len(all)-1] // the other tests' expressions stay
		mu.Unlock()
	}()
	CompileAll()
}
