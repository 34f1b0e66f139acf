package secrets

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fake but realistic secrets, built by concatenation so that this file
// does not itself look like it holds any.
var (
	begin     = "-----BEGIN "
	awsID     = "AKIA" + "IOSFODNN7EXAMPLQ"
	awsSTS    = "ASIA" + "Q3EGUMQ5ZJ7K2L4P"
	awsSK     = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "Q9zT4mVw2L"
	ghToken   = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	ghApp     = "ghs_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
	ghPAT     = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	glToken   = "glpat-" + "xY9zW8vU7tS6rQ5pO4nM"
	slackBot  = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	slackUser = "xoxp-" + "123456789012-123456789012-123456789012-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	hook      = "https://hooks.slack.com/services/" + "T0123ABCD/B0123ABCD/aBcDeFgHiJkLmNoPqRsTuVwX"
	stripe    = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	stripeR   = "rk_live_" + "51H8b2KZvq0Wn3RfG7tYpLm"
	google    = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
	openai    = "sk-" + "T3BlbkFJa8Kq2Zr7Wm4Xv9Ln5Bp1Cd6Gh0Jt3Yu8Ei2"
	openaiP   = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Qe7Rt-Yu0Io"
	anthropic = "sk-ant-" + "api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
	npmTok    = "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	jwt       = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pemSSH    = begin + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
	random20  = "f3A9kQ2mZ7xW1pL8vR4t"
	hex40     = "9f86d081884c7d659a2f" + "eaa0c55ad015a3bf4f1b"
)

func TestScanFindsEveryRule(t *testing.T) {
	cases := []struct{ name, text, rule string }{
		{"openssh key", "deploy key:\n" + pemSSH, rulePEM},
		{"rsa key", begin + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Zq\n-----END RSA PRIVATE KEY-----", rulePEM},
		{"ec key in json", `{"private_key": "` + begin + `EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oyCXzzXb\n"}`, rulePEM},
		{"pkcs8 encrypted", begin + "ENCRYPTED PRIVATE KEY-----\r\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkq", rulePEM},
		{"dsa key quoted", "> " + begin + "DSA PRIVATE KEY-----\n> MIIBuwIBAAKBgQDx9kQ2", rulePEM},
		{"legacy encrypted rsa", begin + "RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,1A2B", rulePEM},
		{"pgp block", begin + "PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF3kz9QBCADQ", rulePEM},
		{"aws id", "use " + awsID + " for uploads", ruleAWSKeyID},
		{"aws sts id", "temporary creds " + awsSTS, ruleAWSKeyID},
		{"aws secret ini", "aws_secret_access_key = " + awsSK, ruleAWSSecret},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=" + awsSK, ruleAWSSecret},
		{"aws secret json", `"awsSecretAccessKey": "` + awsSK + `"`, ruleAWSSecret},
		{"github classic", "token " + ghToken, ruleGitHub},
		{"github app", "installation " + ghApp + " expires in 1h", ruleGitHub},
		{"github fine-grained", ghPAT, ruleGitHub},
		{"gitlab", "PRIVATE-TOKEN: " + glToken, ruleGitLab},
		{"slack bot", slackBot, ruleSlack},
		{"slack user", "legacy " + slackUser, ruleSlack},
		{"slack webhook", "post to " + hook, ruleSlackHook},
		{"stripe secret", stripe, ruleStripe},
		{"stripe restricted", "(" + stripeR + ")", ruleStripe},
		{"google", "maps " + google, ruleGoogle},
		{"openai legacy", "OPENAI " + openai, ruleOpenAI},
		{"openai project", openaiP, ruleOpenAI},
		{"anthropic", anthropic, ruleAnthropic},
		{"npm", "//registry.npmjs.org/:_authToken=" + npmTok, ruleNPM},
		{"jwt", "Authorization: Bearer " + jwt, ruleJWT},
		{"url password", "postgres://app:" + "Zq8#kLm2Vx9p@db.internal:5432/app", ruleURL},
		{"url short password", "amqp://deploy:" + "t0ps3cr@rabbit:5672", ruleURL},
		{"url empty user", "redis://:" + "Hk29xLq7Pw@cache:6379/0", ruleURL},
		{"password assignment", `db_password = "` + "Zq8kLm2Vx9pQ4w" + `"`, rulePassword},
		{"short mixed password", "password: " + "S3cr!t9x", rulePassword},
		{"yaml token", "api_token: " + random20, ruleToken},
		{"json client secret", `{"client_secret": "` + "8fK2mQ9xZ3vL7pW1rT5y" + `"}`, ruleSecret},
		{"go apiKey", `apiKey := "` + "Q7m2Zk9xL3vP8wR1t4" + `"`, ruleKey},
		{"php array", `'password' => '` + "Lw7#qZ2!mK9x" + `'`, rulePassword},
		{"cli flag", "mysql --password=" + "Lw7qZ2mK9xR4", ruleCLI},
		{"spring property", "spring.datasource.password=" + "Lw7qZ2mK9xR4", rulePassword},
		{"query string", "GET /cb?access_token=" + random20 + "&state=1", ruleToken},
		{"bearer header", `curl -H "Authorization: Bearer ` + random20 + `" https://api`, ruleToken},
		{"basic header", "Authorization: Basic " + "ZGVwbG95OlprOHFMdzJtWDk=", ruleToken},
		{"x-api-key header", "X-Api-Key: " + hex40, ruleKey},
		{"two-word label", "API key: " + hex40, ruleKey},
		{"markdown bold", "**Password**: " + "Lw7qZ2mK9xR4", rulePassword},
		{"escaped json", `"{\"password\": \"` + "Zq8kLm2Vx9pQ4w" + `\"}"`, rulePassword},
		{"camel oauth", "oauthToken = '" + random20 + "'", ruleToken},
		{"env export", "export STRIPE_SECRET=" + "abcdef1234567890", ruleEnv},
		{"env low entropy", "DB_PASSWORD=hunter2hunter2", ruleEnv},
		{"env lowercase word", "POSTGRES_PASSWORD=" + "correcthorse", ruleEnv},
		{"env quoted with spaces", `SESSION_SECRET="` + "correct horse battery staple" + `"`, ruleEnv},
		{"env comment", "SENTRY_AUTH=" + "d41d8cd98f00b204 # prod", ruleEnv},
		{"env name is the word", "TOKEN=" + "Qm9vdHN0cmFw", ruleEnv},
		{"env key", "  MAPBOX_KEY=" + "pk3hf82kd92jf", ruleEnv},
		{"env windows", "DB_PASS=" + "hunter2hunter2\r\n", ruleEnv},
		{"env passphrase", "DB_PASSWORD=" + "correct-horse-battery-staple", ruleEnv},
		// A password people chose is words, yet set tight or quoted it is one.
		{"password set tight", "the staging login is password=" + "hunter2hunter2X", rulePassword},
		{"password quoted", `password = "` + "Sunny-Day-2024" + `"`, rulePassword},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Scan(c.text)
			if len(fs) != 1 || fs[0].Rule != c.rule {
				t.Fatalf("Scan(%q) = %+v, want one %q", c.text, fs, c.rule)
			}
		})
	}
}

func TestScanLeavesOrdinaryNotesAlone(t *testing.T) {
	for _, text := range []string{
		// from the brief
		"rotate the API token every 90 days",
		"the password field must be hashed with bcrypt",
		"set GITHUB_TOKEN in CI",
		"commit 3f2a9c1d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c fixed it",
		"request id 123e4567-e89b-12d3-a456-426614174000",
		`token := os.Getenv("TOKEN")`,
		"password: ${DB_PASSWORD}",
		"API_KEY=<your key>",
		"secret=changeme",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  cairn_linux_amd64.tar.gz",
		"sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"```sh\ncurl -H \"Authorization: Bearer $TOKEN\" https://api.github.com/user\n```",
		"passwordHash = bcrypt.GenerateFromPassword(password, 12)",
		"the tokenizer splits camelCase and snake_case",
		// short or low-entropy values: not told apart from examples
		"password=hunter2",
		"password: hunter2hunter2",
		"password=passwordFromVault",
		"password=DB_PASSWORD",
		"password=required",
		"secret = abcdefgh",
		"auth: required",
		"author: jdoe-2024x",
		"pwd: /home/user/src",
		// names that are about secrets, not secrets
		"max_tokens: 4096",
		"token_count = 1200",
		"token_url: https://oauth2.googleapis.com/token",
		"secret_name: prod/db/password",
		"secretName: my-tls-secret",
		"TOKEN_TTL=86400000",
		"AWS_ACCESS_KEY_ID_FILE=/run/secrets/aws",
		"TOKENIZER_MODEL=bert-base-uncased",
		"AUTH_PROVIDER=keycloak-internal",
		"passwordless: true",
		"secretary: Jane Smith",
		"BYPASS_CACHE=yes-please-do",
		// references to where a secret is kept
		"GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
		"token: ${{ secrets.GH_TOKEN }}",
		"export AWS_SECRET_ACCESS_KEY=$AWS_SECRET",
		"export GITHUB_TOKEN=$(gh auth token)",
		"secret = cfg.ClientSecret",
		"password = var.db_password",
		"token = request.headers.get(\"Authorization\")",
		"api_key: passwordFromVault",
		"SLACK_TOKEN=SLACK_BOT_TOKEN_PROD",
		"DB_PASSWORD=vault:secret/data/db#password",
		"OP_TOKEN=op://Engineering/deploy/credential",
		"DB_PASSWORD_FILE=/run/secrets/db_password",
		"client_secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod",
		// placeholders
		"API_KEY=your_api_key_here",
		"api_key: xxxxxxxxxxxxxxxxxxxx",
		"password: '********'",
		"token=<redacted>",
		"SECRET_KEY=REPLACE_ME_BEFORE_DEPLOY",
		"POSTGRES_PASSWORD=postgres",
		"DB_PASSWORD=12345678",
		"AWS_ACCESS_KEY_ID=" + "AKIA" + "IOSFODNN7EXAMPLE",
		"aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
		"token " + "ghp_" + strings.Repeat("x", 36),
		"https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
		"slack bot token looks like xoxb-your-token",
		// URLs
		"See https://user@example.com/path for the docs",
		"DATABASE_URL=postgres://localhost:5432/app",
		"postgres://postgres:postgres@localhost:5432/dev",
		"https://user:password@host:8080/",
		"mongodb://admin:${MONGO_PASSWORD}@mongo:27017",
		"https://deploy:" + "Zq8kLm2Vx9@example.com/",
		"[::1]:8080 and http://[::1]:8080/x",
		// private key headers without a key
		"ssh-keygen writes a file that starts with " + begin + "OPENSSH PRIVATE KEY-----, keep it out of git",
		begin + "RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----",
		// prefixes in ordinary words
		"the task-sk-1234 ticket",
		"pip install sk-learn-extra-long-package-name",
		"install scikit: pip install scikit-learn==1.5.0",
		"see ASIA-PACIFIC region notes",
		// everyday engineering text
		"Rotate the token: it expires in 90 days.",
		"At 10:30 the deploy of v1.2.3 failed; retry with make deploy ENV=staging",
		"if token == nil { return errNoToken }",
		"token != \"\" && len(token) > 0",
		"| name | value |\n| --- | --- |\n| token | see vault |",
		"uuid: 123e4567-e89b-12d3-a456-426614174000",
		"ETag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
		"data: aGVsbG8gd29ybGQgaXMgYmFzZTY0IGluIGEgZG9j",
		"secretKeyRef:\n  name: db\n  key: password",
		"kms_key_region: us-east-1",
		"auth_method: oidc-device-flow",
		"CACHE_KEY=users:v2:list",
		"AUTH=keycloak-internal",
		"GPG_KEY=0x3F2A9C1D4E5B6A7C",
	} {
		if fs := Scan(text); len(fs) > 0 {
			t.Errorf("false positive %+v in %q", fs, text)
		}
	}
}

// Code in notes assigns identifiers, not secrets, to secret-named keys.
func TestIdentifiersAreNotSecrets(t *testing.T) {
	for _, v := range []string{"clientSecretFromEnv", "VerifyClientCertIfGiven", "tokenToOriginMap", "idTokenFetcher",
		"_DSAPrivateKey", "RSAPrivateKeyWithSerialization", "HTTPServerToken", "getJSONWebToken", "encryptionKey1024",
		"oauth2TokenSource", "__ccgo_fp_xAuth", "*idpClientSecret", "!s.config.Disabled", "-0x3f879678",
		"urn:ietf:params:oauth:token-type:saml2", "SLACK_BOT_TOKEN_PROD", "bert-base-uncased", "correct-horse-battery-staple"} {
		if fs := Scan("secret = " + v); len(fs) > 0 {
			t.Errorf("%q taken for a secret: %+v", v, fs)
		}
	}
}

// Random values of the usual token alphabets are caught nearly always
// once they are 20 characters long, hex once it is 32 (the seed is fixed:
// no flakes).
func TestRandomValuesAreCaught(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, alpha := range []string{
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
		"abcdefghijklmnopqrstuvwxyz0123456789",
		"0123456789abcdef",
	} {
		for _, n := range []int{20, 32, 40} {
			if n == 20 && len(alpha) == 16 {
				continue // 20 hex digits fall under 3 bits a character too often; hex tokens are 32 or 40
			}
			missed := 0
			const tries = 2000
			for range tries {
				b := make([]byte, n)
				for i := range b {
					b[i] = alpha[r.Intn(len(alpha))]
				}
				if len(Scan("api_token: "+string(b))) != 1 {
					missed++
				}
			}
			if missed*100 > tries { // more than 1% missed
				t.Errorf("alphabet of %d, length %d: missed %d of %d", len(alpha), n, missed, tries)
			}
		}
	}
}

func TestOneSecretIsOneFinding(t *testing.T) {
	for _, c := range []struct{ text, rule string }{
		{`api_key = "` + google + `"`, ruleGoogle},
		{"GITHUB_TOKEN=" + ghToken, ruleGitHub},
		{"export AWS_SECRET_ACCESS_KEY=\"" + awsSK + "\"", ruleAWSSecret},
		{"token: Bearer " + jwt, ruleJWT},
		{`DATABASE_PASSWORD="` + "Zq8kLm2Vx9pQ4w" + `"`, ruleEnv},
	} {
		if fs := Scan(c.text); len(fs) != 1 || fs[0].Rule != c.rule {
			t.Errorf("Scan(%q) = %+v, want one %q", c.text, fs, c.rule)
		}
	}
}

func TestPositionsAreLinesAndRuneColumnsInOrder(t *testing.T) {
	text := "first line\n" +
		"second: ünïcödé " + awsID + " and " + stripe + "\n" +
		"\n" +
		"日本語 token=" + random20 + "\n" +
		pemSSH
	fs := Scan(text)
	want := []Finding{
		{Rule: ruleAWSKeyID, Line: 2, Column: 17},
		{Rule: ruleStripe, Line: 2, Column: 42},
		{Rule: ruleToken, Line: 4, Column: 11},
		{Rule: rulePEM, Line: 5, Column: 1},
	}
	if len(fs) != len(want) {
		t.Fatalf("got %+v", fs)
	}
	for i := range want {
		if fs[i] != want[i] {
			t.Errorf("finding %d = %+v, want %+v", i, fs[i], want[i])
		}
	}
}

func TestCheckErrorIsOneSafeLine(t *testing.T) {
	body := "a\nb " + ghToken + "\nc " + stripe
	err := Check(Field{"title", "ok"}, Field{"body", body}, Field{"tag", awsID})
	if !errors.Is(err, ErrSecret) {
		t.Fatalf("not ErrSecret: %v", err)
	}
	var se *Error
	if !errors.As(err, &se) || len(se.Findings) != 3 {
		t.Fatalf("findings: %+v", se)
	}
	if f := se.Findings; f[0].Field != "body" || f[1].Field != "body" || f[2].Field != "tag" || f[2].Line != 1 || f[2].Column != 1 {
		t.Fatalf("findings: %+v", f)
	}
	msg := err.Error()
	for _, want := range []string{"refused: body line 2 col 3", "GitHub token", "(and 2 more)", "remove the secret", "$GITHUB_TOKEN"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("message spans lines: %q", msg)
	}
	for _, secret := range []string{ghToken, ghToken[4:20], stripe[8:20], awsID[4:]} {
		if strings.Contains(msg, secret) {
			t.Fatalf("message repeats the secret: %q", msg)
		}
	}
	if err := Check(Field{"body", "plain notes about the token rotation"}, Field{"title", ""}); err != nil {
		t.Fatalf("clean text refused: %v", err)
	}
	if Check() != nil {
		t.Fatal("no fields refused")
	}
}

func TestErrorMessageShapes(t *testing.T) {
	one := (&Error{Findings: []Finding{{Rule: ruleAWSKeyID, Field: "body", Line: 3, Column: 12}}}).Error()
	if want := `refused: body line 3 col 12 holds what looks like an AWS access key id — remove the secret or refer to where it is kept, e.g. "the key in $AWS_ACCESS_KEY_ID"`; one != want {
		t.Errorf("got  %s\nwant %s", one, want)
	}
	noField := (&Error{Findings: []Finding{{Rule: rulePassword, Line: 1, Column: 5}}}).Error()
	if !strings.HasPrefix(noField, "refused: line 1 col 5 holds what looks like a password assignment") {
		t.Errorf("got %s", noField)
	}
	if msg := (&Error{Findings: []Finding{{Rule: ruleEnv, Field: "odd\nname", Line: 1, Column: 1}}}).Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "an .env secret line") {
		t.Errorf("got %q", msg)
	}
	if msg := (&Error{}).Error(); !strings.HasPrefix(msg, "refused:") {
		t.Errorf("empty error: %q", msg)
	}
	if errors.Is(&Error{}, errors.New("secret refused")) {
		t.Error("matches an unrelated error")
	}
}

func TestCheckOnEveryFinding(t *testing.T) {
	// Each rule's message stays one line and never quotes what it found.
	for _, s := range []string{pemSSH, awsID, awsSK, ghToken, ghPAT, glToken, slackBot, hook, stripe, google, openai, anthropic, npmTok, jwt} {
		err := Check(Field{"body", "aws_secret_access_key: " + s})
		if err == nil {
			t.Errorf("nothing found for %.12q…", s)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || strings.Contains(msg, s[min(len(s), 11):min(len(s), 24)]) {
			t.Errorf("message %q", msg)
		}
	}
}

// lineRunes returns the number of runes on each line of text.
func lineRunes(text string) []int {
	var out []int
	for _, l := range strings.Split(text, "\n") {
		out = append(out, utf8.RuneCountInString(l))
	}
	return out
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"", "x", "=", ":", "a=b", "token:", "password=\"", pemSSH, "TOKEN=" + ghToken,
		"ünï\n\n" + awsID, jwt, "postgres://u:" + "p4ssW0rdZ@h", "export X_KEY=\"", begin + "RSA PRIVATE KEY-----",
		"api_key := \"" + random20 + "\"\r\nSECRET=" + hex40, "\xff\xfe token=\xff" + random20,
		"machine h login u password " + random20, "curl -u u:" + random20 + " x", "mysql -p" + random20,
		"<password>" + random20 + "</password>", "TOKEN ?= " + random20, `setProperty("X_TOKEN", "` + random20 + `")`,
		"- name: API_TOKEN\n  value: " + random20, "ENV API_TOKEN " + random20, "s." + random20 + "abcd",
		"sig=" + hex40 + "&sv=1", "MTk4" + random20 + "." + random20[:6] + "." + hex40, "1//0" + hex40 + random20,
		"PuTTY-User-Key-File-3: x\nPrivate-Lines: 1\n" + hex40, "LS0tLS1CRUdJTi" + hex40, "x:AA" + hex40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		runes := lineRunes(text)
		prevLine, prevCol := 0, 0
		found := Scan(text)
		// A finding depends on its own lines only: the same text between
		// two unrelated lines gives the same findings, one line down.
		framed := Scan("-- note --\n" + text + "\n-- end --")
		if len(framed) != len(found) {
			t.Fatalf("framed text gives %+v, alone %+v", framed, found)
		}
		for i, fd := range found {
			if want := (Finding{Rule: fd.Rule, Line: fd.Line + 1, Column: fd.Column}); framed[i] != want {
				t.Fatalf("framed finding %+v, want %+v", framed[i], want)
			}
		}
		for _, fd := range found {
			if fd.Line < 1 || fd.Line > len(runes) || fd.Column < 1 || fd.Column > runes[fd.Line-1] {
				t.Fatalf("finding out of bounds: %+v (lines %v)", fd, runes)
			}
			if fd.Line < prevLine || fd.Line == prevLine && fd.Column <= prevCol {
				t.Fatalf("findings out of order: %+v after %d:%d", fd, prevLine, prevCol)
			}
			if fd.Rule == "" || fd.Field != "" {
				t.Fatalf("finding %+v", fd)
			}
			prevLine, prevCol = fd.Line, fd.Column
		}
	})
}

// note is an ordinary engineering note of about 4 KB: it talks about
// tokens, passwords and secrets, names variables, quotes commits, UUIDs,
// checksums and commands, and holds no secret.
var note = strings.Repeat(`## Deploy notes (2024-11-02)

The cache in pkg/store misses when the key has a trailing slash; we normalise paths
before lookup (see bench #41, commit 3f2a9c1d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c). Rotate the
API token every 90 days via `+"`make rotate`"+` and keep DB_PASSWORD in the vault, never in the repo.
CI reads GITHUB_TOKEN from ${{ secrets.GITHUB_TOKEN }}; locally, export it from 1Password.

    token := os.Getenv("CAIRN_TOKEN")
    if token == "" { return errors.New("set CAIRN_TOKEN") }
    passwordHash, err := bcrypt.GenerateFromPassword([]byte(password), 12)

Request 123e4567-e89b-12d3-a456-426614174000 timed out at 10:32:07 after 30s; the retry
policy (max_tokens: 4096, token_ttl: 3600) held. Checksum of cairn_linux_amd64.tar.gz:
sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.
curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/memories?limit=50
The tokenizer splits camelCase; passwords are hashed with bcrypt (cost 12) and the secret
rotation job runs nightly at 02:00 UTC: see docs/ops.md#rotation and ADR-0007 for why.
`, 4)

func BenchmarkScan(b *testing.B) {
	if fs := Scan(note); len(fs) != 0 {
		b.Fatalf("the ordinary note trips: %+v", fs)
	}
	b.SetBytes(int64(len(note)))
	for b.Loop() {
		Scan(note)
	}
}

// A password in a URL is a password whatever its host is called: the
// compose service "postgres", a host with "test" or "secret" in its name.
// Only documentation's reserved hosts pass.
func TestURLPasswordsToAnyHost(t *testing.T) {
	pw := "Qm7vXk2" + "LpR9sTw"
	for _, host := range []string{"testdb.internal", "postgres:5432", "mysql", "contest-db.prod.aws", "secrets-db.prod", "localhost", "cluster0.latestapp.mongodb.net"} {
		text := "DATABASE_URL: postgres://app:" + pw + "@" + host + "/app"
		if err := Check(Field{Name: "body", Text: text}); err == nil {
			t.Errorf("missed the password in %q", text)
		}
	}
	for _, host := range []string{"example.com", "db.example.org", "host", "hostname", "db.example"} {
		text := "postgres://app:" + pw + "@" + host + "/app"
		if err := Check(Field{Name: "body", Text: text}); err != nil {
			t.Errorf("a documentation host was refused: %q: %v", text, err)
		}
	}
}
