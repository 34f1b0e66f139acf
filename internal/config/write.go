package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"cairn/internal/atomicfile"
)

// Set writes key = value into the file at path (value "" removes the
// key), atomically: a reader sees the old file or the new one, never half
// of one. The rest of the file — comments, order, blank lines — is kept as
// it was; only when the file's layout defeats that is it rewritten whole,
// and rewrote says so. A value that does not validate, or a file that
// does not parse, leaves the file untouched.
func Set(path, key, value string) (rewrote bool, err error) {
	if path == "" {
		return false, errors.New("there is no settings file: set HOME or XDG_CONFIG_HOME")
	}
	value = strings.TrimSpace(value)
	if err := Validate(key, value); err != nil {
		return false, err
	}
	if !utf8.ValidString(value) {
		return false, fmt.Errorf("%s is not valid UTF-8", key)
	}
	value = normalize(key, value)
	old, err := readSettings(path)
	var bad badFile
	if errors.As(err, &bad) {
		return false, errors.New(strings.Replace(string(bad), "using the defaults", "nothing was written", 1))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %v", path, unwrapPath(err))
	}
	var tree map[string]any
	if _, err := toml.Decode(string(old), &tree); err != nil {
		_, problems := parse(path, string(old))
		msg := "the file does not parse"
		if len(problems) > 0 {
			msg = strings.SplitN(problems[0], " — ", 2)[0]
		}
		return false, fmt.Errorf("%s — fix it first with `cairn config edit`; the file is unchanged", msg)
	}
	want, _ := parse(path, string(old))
	if value == "" {
		delete(want, key)
	} else {
		want[key] = value
	}
	text := edit(string(old), key, value)
	if got, problems := parse(path, text); !sameFields(got, want) || hasSyntaxError(problems) {
		text, rewrote = render(want), true
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	for k := range want {
		if sp, _ := Lookup(k); sp.Secret() {
			mode = 0o600 // a key is for its owner's eyes only
		}
	}
	return rewrote, writeAtomic(path, []byte(text), mode)
}

func hasSyntaxError(problems []string) bool {
	for _, p := range problems {
		if strings.Contains(p, "every setting has its default") {
			return true
		}
	}
	return false
}

func sameFields(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// valueRe splits the part of a line after "=" into its value and a
// comment that ends the line.
var valueRe = regexp.MustCompile(`^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#]+)(\s*#.*)?$`)

// edit sets or removes key in text, line by line.
func edit(text, key, value string) string {
	lines := strings.Split(text, "\n")
	sec, lf := section(key), leaf(key)
	encoded := encode(key, value)
	cur, firstHeader, secHeader, lastInSec := "", -1, -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			cur = strings.TrimSpace(strings.Trim(t, "[] \t"))
			if firstHeader < 0 {
				firstHeader = i
			}
			if cur == sec {
				secHeader, lastInSec = i, i
			}
			continue
		}
		k, rest, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(t, "#") {
			continue
		}
		name := strings.Trim(strings.ReplaceAll(strings.TrimSpace(k), " ", ""), `"`)
		if cur == sec && sec != "" {
			lastInSec = i
		}
		if (cur == sec && name == lf) || (cur == "" && name == key) {
			if value == "" {
				return strings.Join(append(lines[:i:i], lines[i+1:]...), "\n")
			}
			comment := ""
			if m := valueRe.FindStringSubmatch(rest); m != nil {
				comment = m[2]
			}
			lines[i] = strings.TrimRight(k, " \t") + " = " + encoded + comment
			return strings.Join(lines, "\n")
		}
	}
	if value == "" {
		return text
	}
	insert := func(at int, add ...string) string {
		out := append(append(append([]string{}, lines[:at]...), add...), lines[at:]...)
		return strings.Join(out, "\n")
	}
	switch {
	case sec == "" && firstHeader >= 0:
		return insert(firstHeader, lf+" = "+encoded, "")
	case sec == "":
		return strings.TrimRight(text, "\n") + nl(text) + lf + " = " + encoded + "\n"
	case secHeader >= 0:
		return insert(lastInSec+1, lf+" = "+encoded)
	}
	return strings.TrimRight(text, "\n") + nl(text) + nl(text) + "[" + sec + "]\n" + lf + " = " + encoded + "\n"
}

// nl is a line break between existing text and what is appended.
func nl(text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return "\n"
}

// normalize writes a valid number or boolean the one way TOML reads it
// ("007" and ".5" are not TOML numbers; "0" is not a TOML boolean).
func normalize(key, value string) string {
	sp, _ := Lookup(key)
	switch sp.kind {
	case kInt:
		if n, err := strconv.Atoi(value); err == nil {
			return strconv.Itoa(n)
		}
	case kWeight:
		if f, err := strconv.ParseFloat(value, 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	case kBool:
		if b, err := strconv.ParseBool(value); err == nil {
			return strconv.FormatBool(b)
		}
	}
	return value
}

// encode writes a value as TOML: numbers and booleans bare, the rest a
// basic string (values hold no control characters: Validate refused them).
func encode(key, value string) string {
	if sp, _ := Lookup(key); sp.kind == kInt || sp.kind == kWeight || sp.kind == kBool {
		return value
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(value) + `"`
}

// render writes the settings as a fresh file, in the order of Specs.
func render(fields map[string]string) string {
	var b bytes.Buffer
	b.WriteString("# cairn settings — see `cairn config --help`\n")
	bySec := map[string][]string{}
	var secs []string
	for _, sp := range Specs {
		v, ok := fields[sp.Key]
		if !ok {
			continue
		}
		sec := section(sp.Key)
		if sec == "" {
			fmt.Fprintf(&b, "%s = %s\n", sp.Key, encode(sp.Key, v))
			continue
		}
		if _, seen := bySec[sec]; !seen {
			secs = append(secs, sec)
		}
		bySec[sec] = append(bySec[sec], leaf(sp.Key)+" = "+encode(sp.Key, v))
	}
	for _, sec := range secs {
		fmt.Fprintf(&b, "\n[%s]\n%s\n", sec, strings.Join(bySec[sec], "\n"))
	}
	return b.String()
}

// writeAtomic replaces path with data: a temporary file beside it, synced,
// then renamed over it. The directory is made private if it is new.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %v", dir, unwrapPath(err))
	}
	if err := atomicfile.WriteBytes(path, mode, data); err != nil {
		return fmt.Errorf("write %s: %v (the file is unchanged)", path, unwrapPath(err))
	}
	return nil
}
