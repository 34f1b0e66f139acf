package recall

import (
	"slices"
	"strings"
	"unicode"

	"cairn/internal/lang"
)

// A question about a repository is asked in a newcomer's words, and the
// code answers in its own: "where are the options checked?" is
// config_validator.py, "where are the partial results combined?" is
// merger.go, "where is standard output wrapped?" is file_proxy.py. The
// groups below are words programmers use for one thing — a verb of what
// code does, a noun of what it holds — so a question's word also finds the
// file named by its kin. They are kept to what any codebase means by them
// (no project's own vocabulary), and each kin weighs less than a word the
// question said, so a file that uses the question's own word stays first.
var kinGroups = [][]string{
	// what code does
	{"check", "validate", "verify", "validator"},
	{"combine", "merge", "merger", "join", "concat"},
	{"wrap", "wrapper", "proxy"},
	{"draw", "render", "renderer", "paint"},
	{"save", "export", "dump", "persist"},
	{"parse", "parser", "decode", "unmarshal", "deserialize"},
	{"serialize", "encode", "marshal", "stringify"},
	{"walk", "traverse", "crawl"},
	{"delete", "remove"},
	{"convert", "transform", "migrate"},
	{"scan", "discover"},
	{"retry", "backoff"},
	{"limit", "cap", "max", "maximum", "throttle", "quota"},
	{"duplicate", "dedup", "dedupe", "deduplicate", "repeated"},
	{"compress", "gzip", "deflate"},
	{"encrypt", "cipher"},
	{"hash", "digest", "checksum"},
	{"highlight", "colorize"},
	{"ignore", "exclude"},
	{"cache", "memoize"},
	{"start", "startup", "boot", "bootstrap"},
	{"shutdown", "teardown"},
	// what code holds
	{"option", "config", "configuration", "preference", "cfg", "conf"}, // not "settings": its stem is the verb "set"
	{"flag", "argument", "args", "arg", "argv", "cli", "clap", "argparse", "cobra", "pflag", "getopt", "yargs", "commander"},
	{"builtin", "built-in", "default", "predefined"},
	{"error", "err", "exception"},
	{"directory", "dir", "folder"},
	{"terminal", "tty", "term"},
	{"keyboard", "key", "keybinding", "keymap", "hotkey", "shortcut", "binding"},
	{"authentication", "auth", "login"},
	{"environment", "env", "envvar"},
	{"request", "req"},
	{"response", "resp"},
	{"template", "tmpl"},
	{"concurrent", "parallel", "worker", "thread", "goroutine"},
	{"plugin", "extension", "addon"},
	{"log", "logger", "logging"},
	{"message", "msg"},
	{"database", "db"},
	{"unix", "linux", "darwin", "macos", "mac", "bsd", "posix"}, // _unix.go holds what Linux and macOS share
	{"mock", "fake", "stub", "dummy"},
	{"crash", "panic", "recover"},
	{"forward", "proxy", "relay"},
	{"rollback", "transaction", "revert", "restore"},
	{"deprecated", "legacy", "compat", "obsolete"},
	{"release", "goreleaser"},
	{"linter", "lint", "golangci", "eslint", "ruff", "flake8", "pylint", "clippy", "rubocop"},
}

// shortForms are the abbreviations code writes for a word a question
// spells out (metadata is meta.py, a connection conn, a context ctx):
// the same word, so they weigh more than a kin. Short forms that are also
// the names of common directories (src, lib, pkg, doc, app, cmd, spec)
// are left out: they
// would name every file under them.
var shortForms = [][]string{
	{"metadata", "meta"},
	{"configuration", "config", "cfg", "conf"},
	{"directory", "dir"},
	{"environment", "env"},
	{"request", "req"},
	{"response", "resp"},
	{"message", "msg"},
	{"database", "db"},
	{"template", "tmpl", "tpl"},
	{"utility", "utilities", "util", "utils"},
	{"information", "info"},
	{"implementation", "impl"},
	{"initialize", "initialization", "init"},
	{"authentication", "auth"},
	{"authorization", "authz"},
	{"repository", "repo"},
	{"format", "fmt"},
	{"string", "str"},
	{"number", "num"},
	{"length", "len"},
	{"index", "idx"},
	{"pointer", "ptr"},
	{"buffer", "buf"},
	{"context", "ctx"},
	{"destination", "dst", "dest"},
	{"temporary", "temp", "tmp"},
	{"previous", "prev"},
	{"maximum", "max"},
	{"minimum", "min"},
	{"character", "char"},
	{"attribute", "attr"},
	{"parameter", "param", "params"},
	{"argument", "arg", "args"},
	{"value", "val"},
	{"variable", "var", "vars"},
	{"function", "func", "fn"},
	{"object", "obj"},
	{"error", "err"},
	{"execute", "exec"},
	{"process", "proc"},
	{"option", "opt", "opts"},
	{"address", "addr"},
	{"connection", "conn"},
	{"server", "srv"},
	{"service", "svc"},
	{"manager", "mgr"},
	{"controller", "ctrl"},
	{"reference", "ref"},
	{"websocket", "ws"},
	{"statistics", "stats"},
	{"performance", "perf"},
	{"socket", "sock"},
	{"network", "networking", "net"},
	// languages by the codes their translations are filed under (README_fr.md, i18n/de.json)
	{"english", "en"}, {"french", "fr"}, {"german", "de"}, {"spanish", "es"}, {"chinese", "zh"}, {"japanese", "ja"},
	{"korean", "ko"}, {"russian", "ru"}, {"portuguese", "pt"}, {"dutch", "nl"}, {"polish", "pl"}, {"turkish", "tr"},
}

// acronyms are what code calls a thing a question names in words:
// "server-sent events" is sse.ts, "regular expression" a regexp router.
// Each is read in the question's words (hyphens and case aside); the
// acronym weighs as a short form.
var acronyms = []struct{ phrase, short string }{
	{"regular expression", "regexp regex reg exp"}, // RegExpRouter, reg-exp-router
	{"server sent event", "sse"},
	{"command line", "cli"},
	{"web socket", "websocket ws"},
	{"json web token", "jwt"},
	{"cross origin", "cors"},
	{"hot module", "hmr"},
	{"user interface", "ui"},
	{"abstract syntax tree", "ast"},
	{"standard input", "stdin"},
	{"standard output", "stdout"},
	{"standard error", "stderr"},
	{"environment variable", "env"},
	{"operating system", "os"},
	{"file system", "fs"},
	{"garbage collect", "gc"},
	{"time to live", "ttl"},
	{"single sign", "sso"},
	{"content security policy", "csp"},
	{"request forgery", "csrf"},
	{"language server", "lsp"},
	{"continuous integration", "ci"},
	{"end of file", "eof"},
	{"read eval print", "repl"},
	{"object relational", "orm"},
	{"internationali", "i18n"},
	{"locali", "l10n"},
	{"unique identifier", "uuid"},
	{"server side render", "ssr"},
	{"dependency injection", "di"},
	{"remote procedure call", "rpc"},
	{"domain name", "dns"},
	{"secure shell", "ssh"},
	{"transport layer security", "tls"},
	{"pseudo terminal", "pty"},
	{"test setup", "conftest fixture"},
	{"commonjs", "cjs"},
	{"table of contents", "toc"},
	{"virtual file", "vfs"},
	{"my own", "custom"},
	{"your own", "custom"},
	{"es module", "esm mjs"},
	{"settings", "config configuration"},
	{"insert or update", "upsert"},
	// what code calls a thing a question says in a phrase
	{"ctrl c", "signal interrupt sigint"},
	{"at the same time", "concurrency concurrent parallel semaphore"},
	{"leading whitespace", "indent indentation unindent dedent"},
	{"content type", "mime mimes"},
	{"put back", "restore rollback"},
	{"allowed to", "authorization authorize permission"},
	{"shape of", "format formatting formatter"},
	{"back up", "backup"},
	{"backed up", "backup"},
	{"in front of", "prefix prefixed"},
	{"man page", "manual"},
	{"how many", ""},
}

// idioms are the phrases whose own words say nothing of the code: "same"
// and "time" are not what "at the same time" asks for.
var idioms = map[string]bool{"ctrl c": true, "at the same time": true, "in front of": true, "how many": true, "put back": true, "back up": true, "backed up": true, "allowed to": true, "shape of": true}

// kinWeight is what a kin of a question's word weighs beside the word;
// shortWeight what its short form (or long form) weighs.
const (
	kinWeight   = 0.35
	shortWeight = 0.8
)

// kin maps a token to the tokens of its groups, each with what it weighs
// beside the token: a short form (or the long one) shortWeight, a kin
// kinWeight.
var kin = func() map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	add := func(groups [][]string, weight float64) {
		for _, g := range groups {
			var toks []string
			for _, w := range g {
				// A compound ("built-in") is itself, whole: its parts
				// ("built") are not kin of the group.
				if t := Tokens(w); len(t) > 0 && !slices.Contains(toks, t[0]) {
					toks = append(toks, t[0])
				}
			}
			for _, t := range toks {
				for _, o := range toks {
					if o == t {
						continue
					}
					if out[t] == nil {
						out[t] = map[string]float64{}
					}
					out[t][o] = max(out[t][o], weight)
				}
			}
		}
	}
	add(kinGroups, kinWeight)
	add(shortForms, shortWeight)
	return out
}()

// agentForms are the names code gives a thing that does what a word
// says: "load" is a loader, "scan" a scanner, "edit" an editor, "parse"
// a parser (stems, as Tokens gives them: "parse" is "pars").
func agentForms(t string) []string {
	if len(t) < 3 || isDigit(t) || strings.Contains(t, "-") {
		return nil
	}
	if strings.HasSuffix(t, "er") || strings.HasSuffix(t, "or") {
		// Not back from the agent: a question's "server" is seldom
		// what serves.
		return nil
	}
	out := []string{t + "er", t + "or"}
	if n := len(t); n >= 3 && !vowel(t[n-1]) && vowel(t[n-2]) && !vowel(t[n-3]) && t[n-1] != 'w' && t[n-1] != 'x' && t[n-1] != 'y' {
		out = append(out, t+t[n-1:]+"er") // scan → scanner, format → formatter
	}
	return out
}

func vowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// withKin is a question's words at weight 1, their agent forms
// (agentForms) at kinWeight, and the kin of each that the question
// does not say at what the kin weighs (more, when two of the
// question's words are kin of one word), and the acronyms of the
// phrases it says and its neighbouring words joined (q is the question
// as written).
func withKin(q string, query []string) map[string]float64 {
	w := weights(query)
	// A question of how to build or run the project asks for commands,
	// not for the code that builds (a builder) or runs (a runner).
	command := asksCommand(q)
	for _, t := range query {
		if command {
			break
		}
		for _, k := range agentForms(t) {
			if _, ok := w[k]; !ok {
				w[k] = kinWeight
			}
		}
	}
	spaced := " " + strings.Join(strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
	// Two words the question says side by side are one word in code
	// that writes them joined ("go get" is goget.go, "work queue"
	// workqueue.go, "key map" a keymap).
	words := strings.Fields(spaced)
	for i := 0; i+1 < len(words); i++ {
		a, b := american(words[i]), american(words[i+1])
		if stopWords[a] || stopWords[b] || len(a) < 2 || len(b) < 2 || isDigit(a) || isDigit(b) {
			continue
		}
		for _, t := range []string{a + b, lang.Stem(a + b), a + strings.TrimSuffix(b, "s")} {
			if _, ok := w[t]; !ok {
				w[t] = shortWeight
			}
		}
	}
	for _, a := range acronyms {
		if !strings.Contains(spaced, " "+a.phrase) {
			continue
		}
		for _, t := range Tokens(a.short) { // as the index holds them
			w[t] = max(w[t], shortWeight)
		}
		if idioms[a.phrase] {
			for _, t := range Tokens(a.phrase) {
				if w[t] == 1 && strings.Count(spaced, " "+t) == 1 {
					w[t] = kinWeight
				}
			}
		}
	}
	// A word of code that two of the question's words are kin of is
	// named twice ("keyboard shortcuts" both say keybindings): each
	// naming adds its weight to what the other left (1-(1-a)(1-b)).
	named := map[string]float64{}
	for _, t := range slices.Compact(slices.Sorted(slices.Values(query))) {
		for k, kw := range kin[t] {
			if slices.Contains(query, k) {
				continue
			}
			named[k] = 1 - (1-named[k])*(1-kw)
		}
	}
	for k, kw := range named {
		w[k] = max(w[k], kw)
	}
	return w
}
