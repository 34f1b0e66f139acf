package recall

import (
	"slices"
	"sort"
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
	{"convert", "transform"},
	{"retry", "backoff"},
	{"compress", "gzip", "deflate"},
	{"encrypt", "cipher"},
	{"hash", "digest", "checksum"},
	{"highlight", "colorize"},
	{"ignore", "exclude"},
	{"cache", "memoize"},
	{"start", "startup", "boot", "bootstrap"},
	{"shutdown", "teardown"},
	// what code holds
	{"option", "config", "configuration", "setting", "settings", "preference", "cfg", "conf"},
	{"flag", "argument", "args", "arg", "argv", "cli", "clap", "argparse", "cobra", "pflag", "getopt", "yargs", "commander"},
	{"builtin", "default", "predefined"},
	{"error", "err", "exception"},
	{"directory", "dir", "folder"},
	{"terminal", "tty", "term"},
	{"keyboard", "key", "keybinding", "shortcut", "binding"},
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
}

// kinWeight is what a kin of a question's word weighs beside the word.
const kinWeight = 0.35

// kin maps a token to the tokens of its group.
var kin = func() map[string][]string {
	out := map[string][]string{}
	for _, g := range kinGroups {
		var toks []string
		for _, w := range g {
			for _, t := range Tokens(w) {
				if !slices.Contains(toks, t) {
					toks = append(toks, t)
				}
			}
		}
		for _, t := range toks {
			for _, o := range toks {
				if o != t && !slices.Contains(out[t], o) {
					out[t] = append(out[t], o)
				}
			}
		}
	}
	for t := range out {
		sort.Strings(out[t])
	}
	return out
}()

// withKin is a question's words at weight 1 and the kin of each that the
// question does not say at kinWeight.
func withKin(query []string) map[string]float64 {
	w := weights(query)
	for _, t := range query {
		for _, k := range kin[t] {
			if _, ok := w[k]; !ok {
				w[k] = kinWeight
			}
		}
	}
	return w
}
