// Package secrets finds credentials in text so that cairn can refuse to
// store them. Every write path (remember, edit, supersede, import, capture,
// archive reasons) runs Check before anything is written, and a write that
// holds a secret is refused whole.
//
// What it detects:
//
//   - private keys: a -----BEGIN … PRIVATE KEY----- header (RSA, EC, DSA,
//     OPENSSH, ENCRYPTED, PGP … KEY BLOCK) followed by key material, the
//     same block in base64 (kubeconfig's client-key-data), a PuTTY .ppk
//     file with its Private-Lines, an age secret key;
//   - token formats that announce themselves by a prefix or a shape, about
//     sixty of them: AWS access key ids; GitHub; GitLab personal, deploy,
//     runner, CI job, trigger, feed, OAuth and runner registration tokens;
//     Slack bot, user, app and config tokens and webhooks; Stripe live,
//     test, restricted keys and webhook secrets; Google API keys, OAuth
//     client secrets, refresh and access tokens; OpenAI, Anthropic, Hugging
//     Face, Groq, Replicate; Azure storage and Service Bus keys in connection
//     strings, SAS signatures (sig= beside sv= or se=), Entra client
//     secrets; npm, PyPI, Docker Hub; SendGrid, Twilio API keys, Mailgun,
//     Mailchimp, Postman; DigitalOcean, Shopify, HashiCorp Vault,
//     Databricks, Doppler, Pulumi, Terraform Cloud, Heroku, Fly.io,
//     Supabase, Vercel, Netlify, Cloudflare origin CA keys; Discord bot
//     tokens (their first part is a numeric id in base64) and webhooks,
//     Telegram bot tokens; Atlassian, Linear, Sentry, New Relic, Grafana,
//     Okta (SSWS), Square, Airtable, Notion, Asana, Mapbox secret tokens,
//     Firebase server keys; JSON web tokens. The random part of each must
//     look random (upper, lower and digit; or digit and letter for hex), so
//     words after a prefix (sk-learn, hf_hub_download) are not tokens;
//   - URLs with a password in them (scheme://user:password@host), .netrc
//     entries (machine HOST login USER password PASS), and passwords given
//     to commands: curl -u user:pass, wget --password, sshpass -p,
//     mysql -pPASS and --password=, docker/podman/helm login -p,
//     redis-cli -a, ldapsearch -w, sqlcmd -P, mongo -p, keytool -storepass,
//     openssl -passin pass:, smbclient -U user%pass, htpasswd -b;
//   - AWS secret access keys assigned to aws_secret_access_key;
//   - assignments (name=value, name: value, name := "value",
//     "name": "value", name => value, Makefile's name ?= value,
//     Authorization: Bearer value), the same in other clothes — an XML
//     element (<password>value</password>, <entry key="token">value),
//     a name/value pair (- name: API_TOKEN / value: …; <add key="ApiKey"
//     value="…"/>), a call with both as literals
//     (System.setProperty("X_TOKEN", "…"), os.Setenv, headers.set), a long
//     flag (--token value) — whose name says it holds a secret (password,
//     passwd, pwd, secret, token, api_key, access_key, account_key,
//     private_key, client_secret, auth, credential …; in an upper-case
//     name KEY too) and whose value looks random: 8 characters or more, two
//     character classes or more, Shannon entropy of 3.0 bits a character or
//     more (12 characters and up) or three classes and 2.5 bits (8 to 11),
//     and not made of words (see below);
//   - .env lines, exactly NAME=value (optionally after export, a
//     Dockerfile's ENV or ARG, setenv or set; ENV, setenv and set -x also
//     take NAME value), whose upper-case name contains KEY, SECRET, TOKEN,
//     PASSWORD, PASS, PWD, CREDENTIAL or AUTH and whose value has 8
//     characters or more.
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
// values. Prefixed token formats, passwords inside URLs and passwords
// given to the commands above are caught whatever their entropy (4
// characters or more, not a placeholder, a reference, a metavariable such
// as PASS or the user's name again), because the prefix, the
// user:password@ shape or the flag already says what they are; a .netrc
// password needs 6 characters and two classes, because the keywords also
// occur in prose. Formats with no prefix of their own (a Heroku key is a
// UUID, a Cloudflare token 40 random characters, a Twilio auth token 32 hex
// digits, Vault's older tokens s. and 24 characters) are caught only where
// a name says what they are. So is any value of 8 characters or more on
// an .env line under a name with PASSWORD, SECRET, TOKEN or CREDENTIAL in
// it, because that is a credential file's own format. Under a name that
// only says KEY, AUTH, PASS or PWD, an .env value made of words joined by
// separators (CACHE_KEY=users:v2:list) passes. Random base62, base64url
// and base36 values of 20 characters or more, and hex of 32 or more, are
// caught more than 99 times in 100 in an assignment; a random value of
// letters only is sometimes read as camelCase words and missed.
//
// How well. corpus_test.go builds, from a fixed seed, about a thousand fake
// secrets in the real formats of some seventy providers and shapes, each
// in the places people paste them (prose, .env, YAML, JSON, shell, code,
// Markdown, headers, Dockerfiles, TOML, Kubernetes env lists), and 344
// lookalikes (hashes, UUIDs, commit ids, base64 of prose, code, SQL, URLs,
// configuration without secrets, references, the prefixes above in
// ordinary words). It requires 95 % found overall, 80 % for each provider,
// and no lookalike taken for a secret.
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
	case ruleNetrc:
		return "the entry in ~/.netrc"
	case ruleCLI:
		return "the password in $DB_PASSWORD"
	}
	if h, ok := ruleHint[rule]; ok {
		return h
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
