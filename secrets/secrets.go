// Package secrets finds credentials in text so that cairn can refuse to
// store them. Every write path (remember, edit, supersede, import, capture,
// archive reasons) runs Check before anything is written, and a write that
// holds a secret is refused whole.
//
// What it detects:
//
//   - private key blocks: a -----BEGIN … PRIVATE KEY----- header (RSA, EC,
//     DSA, OPENSSH, ENCRYPTED, PGP … KEY BLOCK) followed by key material;
//   - token formats that announce themselves by a prefix: AWS access key
//     ids (AKIA, ASIA), GitHub (ghp_ gho_ ghu_ ghs_ ghr_ github_pat_),
//     GitLab (glpat-), Slack (xox?- tokens, hooks.slack.com webhooks),
//     Stripe (sk_live_ rk_live_), Google API keys (AIza), OpenAI (sk-,
//     sk-proj-), Anthropic (sk-ant-), npm (npm_), JSON web tokens;
//   - URLs with a password in them (scheme://user:password@host);
//   - AWS secret access keys assigned to aws_secret_access_key;
//   - assignments (name=value, name: value, name := "value",
//     "name": "value", name => value, Authorization: Bearer value) whose
//     name says it holds a secret (password, passwd, pwd, secret, token,
//     api_key, access_key, private_key, client_secret, auth, credential …)
//     and whose value looks random: 8 characters or more, two character
//     classes or more, Shannon entropy of 3.0 bits a character or more (12
//     characters and up) or three classes and 2.5 bits (8 to 11), and not
//     made of words (see below);
//   - .env lines, exactly NAME=value (optionally after "export "), whose
//     upper-case name contains KEY, SECRET, TOKEN, PASSWORD, PASS, PWD,
//     CREDENTIAL or AUTH and whose value has 8 characters or more.
//
// What it leaves alone, on purpose. Memories are engineering notes that
// talk about secrets all the time, and a scanner that cried wolf would
// teach people to work around it. So these pass: the words themselves
// ("rotate the token"); variable names (GITHUB_TOKEN); key names that are
// about a secret rather than holding one (passwordHash, tokenizer,
// max_tokens, token_url, secret_name, TOKEN_TTL); references to where a
// secret is kept ($TOKEN, ${DB_PASSWORD}, os.Getenv("TOKEN"),
// cfg.ClientSecret, vault:…, op://…, a path, a URL); placeholders (<your
// key>, changeme, xxxx, ***, your_token_here, example, dummy, redacted,
// well-known defaults such as postgres); values made of words, which is
// what code assigns (clientSecretFromEnv, VerifyClientCertIfGiven,
// us-east-1); commit ids, UUIDs and checksums outside a secret-named
// assignment; a private key header quoted without a key after it.
//
// Judgement calls. Short or low-entropy values in an assignment
// (password=hunter2, password: hunter2hunter2) pass: they cannot be told
// from examples without guessing, and the issue asks for high-entropy
// values. Prefixed token formats and passwords inside URLs are caught
// whatever their entropy, because the prefix or the user:password@ shape
// already says what they are; so is any value of 8 characters or more on
// an .env line under a name with PASSWORD, SECRET, TOKEN or CREDENTIAL in
// it, because that is a credential file's own format. Under a name that
// only says KEY, AUTH, PASS or PWD, an .env value made of words joined by
// separators (CACHE_KEY=users:v2:list) passes. Random base62, base64url
// and base36 values of 20 characters or more, and hex of 32 or more, are
// caught more than 99 times in 100 in an assignment.
package secrets

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSecret is what every refusal of this package matches with errors.Is.
var ErrSecret = errors.New("secret refused")

// Finding is one credential found in a text.
type Finding struct {
	Rule   string // short human name: "AWS access key id", "private key block", ...
	Field  string // which field it was in, as given to Check ("body", "title", ...)
	Line   int    // 1-based line within that field
	Column int    // 1-based column (in runes) where it starts
}

// Field names a piece of text to check.
type Field struct{ Name, Text string }

// Check scans the fields and returns nil or an *Error listing all findings,
// field by field in the order given, each field's in order of position.
func Check(fields ...Field) error {
	var all []Finding
	for _, f := range fields {
		for _, fd := range Scan(f.Text) {
			fd.Field = f.Name
			all = append(all, fd)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return &Error{Findings: all}
}

// Error lists what Check found. Its message is one line that names the
// first finding and where it is, counts the rest, never repeats the secret,
// and says what to do instead.
type Error struct{ Findings []Finding }

func (e *Error) Error() string {
	if len(e.Findings) == 0 {
		return "refused: the text holds what looks like a secret — remove the secret or refer to where it is kept, e.g. \"the key in $API_KEY\""
	}
	f := e.Findings[0]
	where := fmt.Sprintf("line %d col %d", f.Line, f.Column)
	if name := oneLine(f.Field); name != "" {
		where = name + " " + where
	}
	more := ""
	if n := len(e.Findings) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	rule := oneLine(f.Rule)
	if rule == "" {
		rule = "secret"
	}
	return fmt.Sprintf("refused: %s holds what looks like %s %s%s — remove the secret or refer to where it is kept, e.g. %q",
		where, article(rule), rule, more, hint(rule))
}

// Is makes errors.Is(err, ErrSecret) true.
func (e *Error) Is(target error) bool { return target == ErrSecret }

// hint is a reference a person could write instead of the secret.
func hint(rule string) string {
	switch rule {
	case ruleAWSKeyID:
		return "the key in $AWS_ACCESS_KEY_ID"
	case ruleAWSSecret:
		return "the secret in $AWS_SECRET_ACCESS_KEY"
	case rulePEM:
		return "the deploy key in ~/.ssh/id_ed25519"
	case ruleGitHub:
		return "the token in $GITHUB_TOKEN"
	case ruleGitLab:
		return "the token in $GITLAB_TOKEN"
	case ruleSlack:
		return "the token in $SLACK_BOT_TOKEN"
	case ruleSlackHook:
		return "the webhook URL in $SLACK_WEBHOOK_URL"
	case ruleStripe:
		return "the key in $STRIPE_SECRET_KEY"
	case ruleGoogle:
		return "the key in $GOOGLE_API_KEY"
	case ruleOpenAI:
		return "the key in $OPENAI_API_KEY"
	case ruleAnthropic:
		return "the key in $ANTHROPIC_API_KEY"
	case ruleNPM:
		return "the token in $NPM_TOKEN"
	case ruleJWT:
		return "the token in $AUTH_TOKEN"
	case ruleURL:
		return "the URL in $DATABASE_URL"
	case rulePassword:
		return "the password in $DB_PASSWORD"
	case ruleToken:
		return "the token in $API_TOKEN"
	}
	return "the key in $API_KEY"
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU.", rune(s[0])) {
		return "an"
	}
	return "a"
}

// oneLine keeps a caller-supplied name from breaking the one-line message.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
