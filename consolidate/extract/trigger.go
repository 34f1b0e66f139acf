package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/consolidate/claims"
	"cairn/internal/lang"
)

// CommonVerbs make poor triggers: a task says "use" or "run" about anything.
var CommonVerbs = lang.WordSet(`use uses used run runs ran take takes took hold holds live lives keep keeps set sets
	go goes get gets make makes serve serves served own owns owned depend depends is are was were have has do
	does out up`)

// CommonTriggerWords are words a coding task says about anything: alone,
// a trigger of them would bring its warning up on routine prompts.
var CommonTriggerWords = lang.WordSet(`not no yes all any add added adds change changed changes update updated updates fix fixed fixes
	modify modified remove removed delete deleted create created new old table tables file files code data test tests
	function functions value values type types error errors list lists name names field fields page pages view views
	user users model models server config option options check checks build builds issue issues work works working
	thing things item items line lines text string strings number numbers app application module modules class classes
	method methods call calls result results output input run runs start stop open close read write show find make
	task tasks step steps part parts case cases way time times one two first last next main default true false null
	empty set get put move copy load save send wrong right good bad same other more less some many much very just
	also only still now then here there this that these those it its with without from into for and or but the a an
	don doesn didn isn aren wasn won can couldn shouldn`)

// everydayCommands are commands so routine that their name alone (with
// its subcommand) says nothing: a trigger needs an argument after them.
var everydayCommands = lang.WordSet(`git cd ls cat echo grep rg find sudo mkdir rm cp mv touch head tail sed awk bd`)

// SpecificTrigger reports whether a trigger names something a task would
// mention only when it is about it: an identifier, a path, a command with
// its argument, or two content words or more — never a single common word
// ("not", "table"), a flag alone ("--strict"), or an everyday command
// alone ("git push", "git add").
func SpecificTrigger(t string) bool {
	t = strings.ToLower(strings.TrimSpace(t))
	ws := strings.Fields(t)
	if len(ws) == 0 {
		return false
	}
	if strings.HasPrefix(t, "-") && len(ws) == 1 {
		// A flag alone: only one of its own ("--no-verify"), never a
		// word every tool has ("--strict", "-v").
		name := strings.TrimLeft(t, "-")
		return len(name) >= 6 && strings.ContainsAny(name, "-_")
	}
	if len(ws) == 1 {
		w := ws[0]
		if CommonTriggerWords[w] || claims.FuncWords[w] || CommonVerbs[w] {
			return false
		}
		// An identifier or a path: something a task names only when it
		// is about it.
		if strings.ContainsAny(w, "_./:@") || strings.ContainsAny(w, "0123456789") && strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			return true
		}
		if i := strings.IndexByte(w, '-'); i > 0 && i < len(w)-1 {
			return true // golangci-lint, spotter-fum
		}
		return utf8.RuneCountInString(w) >= 4 // a name: postgres, argocd, dialyzer
	}
	if everydayCommands[ws[0]] {
		return len(ws) >= 3 // git push origin main, not git push
	}
	if commandLike(ws[0]) || strings.ContainsAny(ws[0], "/.") && len(ws[0]) > 3 {
		return true // go test, mix credo --strict, ./scripts/seed.sh --demo
	}
	// A phrase is narrower than any of its words: it passes when two of
	// them say something, or one would pass alone ("alpine build").
	content := 0
	for _, w := range ws {
		w = strings.Trim(w, "`'\".,;:()")
		if w != "" && !CommonTriggerWords[w] && !claims.FuncWords[w] && !CommonVerbs[w] && !strings.HasPrefix(w, "-") {
			content++
			if SpecificTrigger(w) {
				return true
			}
		}
	}
	return content >= 2
}

// commandLike reports whether a word starts a command: a program a
// trigger may name with its argument ("mix credo", "cargo clippy").
func commandLike(w string) bool {
	return CommandNames[w] || w == "mix" || w == "bundle" || w == "rake" || w == "rspec"
}
