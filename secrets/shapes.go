package secrets

import "strings"

// scanners are the rules that recognise a secret by the shape of the text
// around it rather than by its own format: a .netrc entry, a password
// given to a command, an XML element, a call that sets a named value.
var scanners = []scanner{
	{lits: []string{"machine", "default"}, run: netrcPasswords},
	{lits: []string{"curl", "wget", "sshpass", "mysql", "mariadb", "login", "redis-cli", "ldap", "sqlcmd", "bcp",
		"mongo", "keytool", "-pass", "smbclient", "htpasswd", "--"}, run: commandPasswords},
	{lits: []string{"</"}, run: xmlElements},
	{lits: []string{`("`, `('`}, run: callArguments},
}

// netrcPasswords calls found for the password of every .netrc entry:
// "machine HOST login USER password PASS" (or "default …"), on one line or
// several. The entry's keywords must follow each other with nothing else
// between them, which prose does not do. The password is caught when it
// has 6 characters or more and two character classes (or 16 characters),
// unless it is a placeholder, a reference or the login again.
func netrcPasswords(text string, found func(start, end int, rule string)) {
	inEntry, key, login := false, "", ""
	for i := 0; i < len(text); {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		s := i
		for i < len(text) && !isSpace(text[i]) {
			i++
		}
		if s == i {
			break
		}
		w := text[s:i]
		if key != "" {
			switch key {
			case "machine":
				inEntry, login = true, ""
			case "login":
				login = w
			case "password":
				vs, ve := s, i
				if ve-vs >= 2 && text[vs] == '"' && text[ve-1] == '"' {
					vs, ve = vs+1, ve-1
				}
				if v := text[vs:ve]; len(v) >= 6 && (classes(v) >= 2 || len(v) >= 16) && v != login && !placeholder(v) && !reference(v) {
					found(vs, ve, ruleNetrc)
				}
			}
			key = ""
			continue
		}
		switch w {
		case "machine":
			key = w
		case "default":
			inEntry, login = true, ""
		case "login", "password", "account", "port":
			if inEntry {
				key = w
			}
		default:
			inEntry = false
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// How a command takes a password.
type flagKind uint8

const (
	valueFlag    flagKind = iota // -p VALUE, -pVALUE, --password VALUE, --password=VALUE
	attachedFlag                 // only -pVALUE: mysql's "-p db" asks for the password, db is a database
	equalsFlag                   // only --password=VALUE, for the same reason
	userFlag                     // USER:PASSWORD (USER%PASSWORD for smbclient)
	opensslFlag                  // pass:PASSWORD; env:, file: and fd: name where it is kept
)

type command struct {
	names []string
	login bool // only after a "login" argument: docker login -p, but not docker run -p
	flags map[string]flagKind
	user  byte // what separates the user from the password in a userFlag value
}

// commands are the command-line tools whose password flags are caught
// whatever the password's entropy: the flag already says what follows it.
var commands = []command{
	{names: []string{"curl"}, user: ':', flags: map[string]flagKind{"-u": userFlag, "--user": userFlag, "-U": userFlag, "--proxy-user": userFlag, "--oauth2-bearer": valueFlag}},
	{names: []string{"wget"}, flags: map[string]flagKind{"--password": valueFlag, "--http-password": valueFlag, "--ftp-password": valueFlag, "--proxy-password": valueFlag}},
	{names: []string{"sshpass"}, flags: map[string]flagKind{"-p": valueFlag}},
	{names: []string{"mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlsh", "mariadb-dump"},
		flags: map[string]flagKind{"-p": attachedFlag, "--password": equalsFlag}},
	{names: []string{"docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl", "cosign", "finch"}, login: true,
		flags: map[string]flagKind{"-p": valueFlag, "--password": valueFlag}},
	{names: []string{"redis-cli", "valkey-cli"}, flags: map[string]flagKind{"-a": valueFlag, "--pass": valueFlag}},
	{names: []string{"ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare", "ldapmodrdn"},
		flags: map[string]flagKind{"-w": valueFlag}},
	{names: []string{"sqlcmd", "bcp"}, flags: map[string]flagKind{"-P": valueFlag}},
	{names: []string{"mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop"},
		flags: map[string]flagKind{"-p": valueFlag, "--password": valueFlag}},
	{names: []string{"keytool"}, flags: map[string]flagKind{"-storepass": valueFlag, "-keypass": valueFlag, "-srcstorepass": valueFlag,
		"-deststorepass": valueFlag, "-srckeypass": valueFlag, "-destkeypass": valueFlag, "-new": valueFlag}},
	{names: []string{"openssl"}, flags: map[string]flagKind{"-passin": opensslFlag, "-passout": opensslFlag, "-pass": opensslFlag, "-kpass": opensslFlag}},
	{names: []string{"smbclient", "rpcclient", "smbmap"}, user: '%', flags: map[string]flagKind{"-U": userFlag, "--user": userFlag, "--password": valueFlag}},
}

var commandByName = map[string]*command{}

func init() {
	for i := range commands {
		for _, n := range commands[i].names {
			commandByName[n] = &commands[i]
		}
	}
}

// A word of a command line: its span in the text, quotes included.
type word struct{ s, e int }

// commandPasswords calls found for passwords given on a command line:
// the flags of the tools in commands (curl -u user:pass, sshpass -p,
// mysql -pPASS, docker login -p, …), htpasswd -b's password argument, and,
// for any command, a long flag named for a secret followed by a random
// value (--token VALUE; --token=VALUE is an assignment).
func commandPasswords(text string, found func(start, end int, rule string)) {
	var words []word
	for off := 0; off < len(text); {
		end, next := len(text), len(text)
		if nl := strings.IndexByte(text[off:], '\n'); nl >= 0 {
			end, next = off+nl, off+nl+1
		}
		if strings.IndexByte(text[off:end], '-') >= 0 {
			words = splitWords(text, off, end, words[:0])
			commandLine(text, words, found)
		}
		off = next
	}
}

// splitWords splits text[s:e] into shell words: runs of non-blanks, where
// a quoted part may hold blanks.
func splitWords(text string, s, e int, words []word) []word {
	for i := s; i < e; {
		for i < e && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
			i++
		}
		ws := i
		for i < e && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' {
			switch c := text[i]; c {
			case '"', '\'':
				if q := strings.IndexByte(text[i+1:e], c); q >= 0 {
					i += q + 2
					continue
				}
			case '\\':
				i++
			}
			i++
		}
		if i > e {
			i = e
		}
		if i > ws {
			words = append(words, word{ws, i})
		}
	}
	return words
}

func commandLine(text string, words []word, found func(start, end int, rule string)) {
	var cmd *command
	login := false
	for j := 0; j < len(words); j++ {
		w := text[words[j].s:words[j].e]
		switch w {
		case "|", "||", "&&", ";", "&":
			cmd, login = nil, false
			continue
		}
		// A command may run another: sudo mysql, docker exec db mysql.
		name := w[strings.LastIndexByte(w, '/')+1:]
		if c, ok := commandByName[name]; ok {
			cmd, login = c, false
			continue
		}
		if name == "htpasswd" {
			htpasswd(text, words[j+1:], found)
			continue
		}
		if w == "login" {
			login = true
		}
		if cmd != nil && (login || !cmd.login) {
			if s, e, ok := commandFlag(text, cmd, words, j); ok {
				found(s, e, ruleCLI)
				continue
			}
		}
		// Any command: --token VALUE, --api-key VALUE.
		if strings.HasPrefix(w, "--") && j+1 < len(words) && !strings.ContainsRune(w, '=') {
			if _, _, ok := secretName(w, false); ok {
				s, e := unquote(text, words[j+1].s, words[j+1].e)
				if text[s] != '-' && looksRandom(text[s:e]) {
					found(s, e, ruleCLI)
				}
			}
		}
	}
}

// commandFlag reports the password that the flag in words[j] gives.
func commandFlag(text string, cmd *command, words []word, j int) (int, int, bool) {
	ws, we := words[j].s, words[j].e
	w := text[ws:we]
	if !strings.HasPrefix(w, "-") {
		return 0, 0, false
	}
	var vs, ve int
	kind, ok := cmd.flags[w]
	switch {
	case ok && kind != attachedFlag && kind != equalsFlag:
		if j+1 >= len(words) {
			return 0, 0, false
		}
		vs, ve = words[j+1].s, words[j+1].e
		if text[vs] == '-' {
			return 0, 0, false
		}
	default:
		if k := strings.IndexByte(w, '='); k > 0 && strings.HasPrefix(w, "--") {
			if kind, ok = cmd.flags[w[:k]]; !ok || kind == attachedFlag {
				return 0, 0, false
			}
			vs, ve = ws+k+1, we
		} else if len(w) > 2 && w[1] != '-' {
			if kind, ok = cmd.flags[w[:2]]; !ok || kind == equalsFlag {
				return 0, 0, false
			}
			vs, ve = ws+2, we
		} else {
			return 0, 0, false
		}
	}
	vs, ve = unquote(text, vs, ve)
	user := ""
	switch kind {
	case userFlag:
		k := strings.IndexByte(text[vs:ve], cmd.user)
		if k < 0 {
			return 0, 0, false
		}
		user = text[vs : vs+k]
		vs += k + 1
	case opensslFlag:
		if !strings.HasPrefix(text[vs:ve], "pass:") {
			return 0, 0, false
		}
		vs += len("pass:")
	}
	if v := text[vs:ve]; !cliSecret(v, user) {
		return 0, 0, false
	}
	return vs, ve, true
}

// htpasswd -b [other flags] FILE USER PASSWORD (or -nb USER PASSWORD).
func htpasswd(text string, words []word, found func(start, end int, rule string)) {
	batch, stdout, pos := false, false, 0
	for _, w := range words {
		a := text[w.s:w.e]
		if strings.HasPrefix(a, "-") && pos == 0 {
			if strings.Trim(a[1:], "abcdimnpsvBCDI25") != "" {
				return // not htpasswd's flags: prose or a usage line
			}
			batch = batch || strings.ContainsRune(a, 'b')
			stdout = stdout || strings.ContainsRune(a, 'n')
			continue
		}
		pos++
		if batch && (pos == 3 || stdout && pos == 2) {
			s, e := unquote(text, w.s, w.e)
			if cliSecret(text[s:e], "") {
				found(s, e, ruleCLI)
			}
			return
		}
	}
}

// unquote narrows a word's span to the inside of its quotes, if it is
// quoted whole.
func unquote(text string, s, e int) (int, int) {
	if e-s >= 2 && (text[s] == '"' || text[s] == '\'') && text[e-1] == text[s] {
		return s + 1, e - 1
	}
	return s, e
}

// cliSecret is what a command's password flag must be given to count: 4
// characters or more, like a password in a URL, and not a placeholder, a
// reference, a command substitution, a metavariable from a usage line
// (-pPASS, FILE USER PASSWORD) or the user's name again.
func cliSecret(v, user string) bool {
	return len(v) >= 4 && v != user && !placeholder(v) && !reference(v) &&
		!strings.HasPrefix(v, "`") && !strings.HasPrefix(v, "-") && !constCase(strings.TrimRight(v, ",.;:)]"))
}

// xmlElements calls found for the content of every XML element named for
// a secret (<password>…</password>, <apiKey>…</apiKey>), or carrying a
// key or name attribute that is (<entry key="token">…</entry>), when the
// content looks random, as for an assignment. Attribute pairs
// (<add key="ApiKey" value="…"/>) are the assignment rule's.
func xmlElements(text string, found func(start, end int, rule string)) {
	for i := 0; i < len(text); {
		k := strings.Index(text[i:], "</")
		if k < 0 {
			return
		}
		c := i + k
		i = c + 2
		ne := i
		for ne < len(text) && ne-i < 64 && xmlNameByte(text[ne]) {
			ne++
		}
		if ne == i || ne >= len(text) || text[ne] != '>' {
			continue
		}
		name := text[i:ne]
		// The opening tag ends at the last '>' before the closing tag, or
		// before the CDATA section that ends there.
		lo := max(0, c-1024)
		ce := c
		if strings.HasSuffix(text[lo:c], "]]>") {
			if k := strings.LastIndex(text[lo:c], "<![CDATA["); k >= 0 {
				ce = lo + k
			}
		}
		gt := strings.LastIndexByte(text[lo:ce], '>')
		if gt < 0 {
			continue
		}
		gt += lo
		lt := strings.LastIndexByte(text[lo:gt], '<')
		if lt < 0 {
			continue
		}
		lt += lo
		open := text[lt+1 : gt]
		if !strings.HasPrefix(open, name) || len(open) > len(name) && !isSpace(open[len(name)]) && open[len(name)] != '/' {
			continue
		}
		rule, _, ok := secretName(name, false)
		if !ok {
			rule, ok = secretAttribute(open[len(name):])
		}
		if !ok {
			continue
		}
		vs, ve := gt+1, c
		for vs < ve && isSpace(text[vs]) {
			vs++
		}
		for ve > vs && isSpace(text[ve-1]) {
			ve--
		}
		if strings.HasPrefix(text[vs:ve], "<![CDATA[") && strings.HasSuffix(text[vs:ve], "]]>") {
			vs, ve = vs+len("<![CDATA["), ve-len("]]>")
		}
		if v := text[vs:ve]; !strings.ContainsAny(v, " \t\r\n<>") && looksRandom(v) {
			found(vs, ve, rule)
		}
	}
}

func xmlNameByte(c byte) bool { return nameByte(c) || c == ':' }

// secretAttribute reports whether a tag's attributes name a secret with a
// key, name or id attribute: key="db.password".
func secretAttribute(attrs string) (string, bool) {
	for _, a := range []string{"key=", "name=", "id=", "Key=", "Name=", "Id="} {
		k := strings.Index(attrs, a)
		if k < 0 || k > 0 && !isSpace(attrs[k-1]) || k+len(a) >= len(attrs) {
			continue
		}
		v := attrs[k+len(a):]
		if q := v[0]; q == '"' || q == '\'' {
			if e := strings.IndexByte(v[1:], q); e >= 0 {
				if rule, _, ok := secretName(v[1:1+e], constCase(v[1:1+e])); ok {
					return rule, true
				}
			}
		}
	}
	return "", false
}

// callArguments calls found for the value of every call that sets a value
// named for a secret, with both as string literals:
// System.setProperty("X_TOKEN", "…"), os.Setenv("API_KEY", "…"),
// headers.set("Authorization", "Bearer …"), define('AUTH_KEY', '…'). The
// value must look random, as for an assignment.
func callArguments(text string, found func(start, end int, rule string)) {
	for i := 0; i < len(text); {
		k := strings.IndexByte(text[i:], '(')
		if k < 0 {
			return
		}
		i += k + 1
		if i >= len(text) || text[i] != '"' && text[i] != '\'' {
			continue
		}
		q := text[i]
		ne := strings.IndexByte(text[i+1:min(len(text), i+66)], q)
		if ne < 1 {
			continue
		}
		name := text[i+1 : i+1+ne]
		j := i + 2 + ne
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j >= len(text) || text[j] != ',' {
			continue
		}
		for _, c := range []byte(name) {
			if !nameByte(c) {
				name = ""
				break
			}
		}
		rule, _, ok := secretName(name, constCase(name))
		if !ok {
			continue
		}
		if s, e := valueAfter(text, j+1); e > s && looksRandom(text[s:e]) {
			found(s, e, rule)
		}
	}
}
