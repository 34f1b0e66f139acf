package secrets

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// Rule names of the token formats and key files, as they appear in findings
// and messages. The first ones are older than the table and have their
// hint in hint(); the others carry it in the table.
const (
	rulePEM       = "private key block"
	ruleAWSKeyID  = "AWS access key id"
	ruleAWSSecret = "AWS secret access key"
	ruleGitHub    = "GitHub token"
	ruleGitLab    = "GitLab token"
	ruleSlack     = "Slack token"
	ruleSlackHook = "Slack webhook URL"
	ruleStripe    = "Stripe key"
	ruleGoogle    = "Google API key"
	ruleOpenAI    = "OpenAI API key"
	ruleAnthropic = "Anthropic API key"
	ruleNPM       = "npm token"
	ruleJWT       = "JSON web token"
	ruleURL       = "password in a URL"
	rulePassword  = "password assignment"
	ruleToken     = "token assignment"
	ruleKey       = "key assignment"
	ruleSecret    = "secret assignment"
	ruleEnv       = ".env secret line"
	ruleNetrc     = ".netrc password"
	ruleCLI       = "password on a command line"
)

// Body classes: what the random part of a token must contain, so that
// words and identifiers after a prefix (sk-learn-extra, hf_hub_download)
// are not taken for tokens. Random bodies of the lengths below have them
// all but never by chance alone.

// mixedAlnum: upper case, lower case and a digit, as any random base62 or
// base64 string of 20 characters or more has.
func mixedAlnum(v string) bool {
	var up, lo, dg bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		lo = lo || c >= 'a' && c <= 'z'
		dg = dg || c >= '0' && c <= '9'
	}
	return up && lo && dg
}

// hexMixed: a digit and a letter, as random hex of 24 digits or more has.
func hexMixed(v string) bool {
	var dg, al bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		dg = dg || c >= '0' && c <= '9'
		al = al || isLetter(c)
	}
	return dg && al
}

func threeClasses(v string) bool { return classes(v) >= 3 }
func twoClasses(v string) bool   { return classes(v) >= 2 }

// caseBalanced: a sixth of the letters or more in each case, as random
// letters have and camelCase words do not (Hugging Face tokens are letters
// only, so a digit cannot tell them from an identifier).
func caseBalanced(v string) bool {
	up, lo := 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'A' && c <= 'Z':
			up++
		case c >= 'a' && c <= 'z':
			lo++
		}
	}
	return up > 0 && lo > 0 && up*6 >= up+lo && lo*6 >= up+lo
}

func randomAlnum(v string) bool { return mixedAlnum(v) && caseBalanced(v) }

// randomLetters: letters in both cases that do not read as camelCase
// words: few vowels (random letters have about one in five, words two in
// five), or humps that wordish does not take for words.
func randomLetters(v string) bool {
	vowels := 0
	for i := 0; i < len(v); i++ {
		switch v[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u':
			vowels++
		}
	}
	return caseBalanced(v) && (vowels*10 < len(v)*3 || !wordish(v))
}

// body returns a check that refuses documentation stand-ins and applies ok
// to the match (or its submatch group) after its first n bytes.
func body(n int, ok func(string) bool) func(string, []int) bool {
	return body1(0, n, ok)
}

func body1(group, n int, ok func(string) bool) func(string, []int) bool {
	return func(text string, m []int) bool {
		v := text[m[2*group]:m[2*group+1]]
		return notTokenPlaceholder(text, m) && ok(v[min(n, len(v)):])
	}
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// lastPart applies ok to what follows the last '.' of the match.
func lastPart(ok func(string) bool) func(string, []int) bool {
	return func(text string, m []int) bool {
		v := text[m[0]:m[1]]
		return notTokenPlaceholder(text, m) && ok(v[strings.LastIndexByte(v, '.')+1:])
	}
}

// patterns are tried in this order; when two findings overlap the
// earlier pattern wins, and every pattern wins over the scanners and the
// generic URL, assignment and .env rules.
var patterns = []pattern{
	{name: rulePEM, lits: []string{"-----BEGIN "}, max: 80,
		expr:  `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`,
		check: func(text string, m []int) bool { return keyMaterialAfter(text, m[1]) }},
	{name: "PuTTY private key", hint: "the key in ~/.ssh/id_ed25519.ppk", lits: []string{"PuTTY-User-Key-File-"}, max: 100,
		expr:  `PuTTY-User-Key-File-[1-9]: *[A-Za-z0-9@.\-]+`,
		check: func(text string, m []int) bool { return puttyMaterialAfter(text, m[1]) }},
	{name: "base64 private key", hint: "the key in ~/.kube/client.key", lits: []string{"LS0tLS1CRUdJTi"}, max: 400,
		expr: `LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}`, check: base64KeyBlock},
	{name: "age secret key", hint: "the identity in ~/.config/age/keys.txt", lits: []string{"AGE-SECRET-KEY-1"},
		expr: `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`, check: body(16, hexMixed)},
	{name: ruleAWSKeyID, lits: []string{"AKIA", "ASIA"}, max: 20,
		expr: `(?:AKIA|ASIA)[A-Z0-9]{16}\b`, check: notTokenPlaceholder},
	{name: ruleGitHub, lits: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, max: 260,
		expr: `gh[pousr]_[A-Za-z0-9]{36,255}\b`, check: notTokenPlaceholder},
	{name: ruleGitHub, lits: []string{"github_pat_"}, max: 270,
		expr: `github_pat_[A-Za-z0-9_]{50,255}\b`, check: notTokenPlaceholder},
	// GitLab: personal, deploy, runner, CI job, trigger, feed, incoming
	// mail, OAuth, SCIM, feature flag, agent and workspace tokens, and
	// runner registration tokens.
	{name: ruleGitLab, lits: []string{"glpat-", "gldt-", "glrt-", "glcbt-", "glptt-", "glft-", "glimt-", "gloas-", "glsoat-", "glffct-", "glagent-", "glwt-"},
		expr: `gl(?:pat|dt|rt|cbt|ptt|ft|imt|oas|soat|ffct|agent|wt)-[A-Za-z0-9_.\-]{20,}`,
		check: func(text string, m []int) bool {
			v := text[m[0]:m[1]]
			return notTokenPlaceholder(text, m) && twoClasses(v[strings.IndexByte(v, '-')+1:])
		}},
	{name: ruleGitLab, lits: []string{"GR1348941"}, expr: `GR1348941[A-Za-z0-9_\-]{20,}`, check: body(9, twoClasses)},
	{name: ruleSlack, lits: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xoxe-"},
		expr: `xox[abprse]-[0-9]+-[A-Za-z0-9\-]{8,}`, check: notTokenPlaceholder},
	{name: ruleSlack, lits: []string{"xapp-"}, expr: `xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]{32,}`, check: notTokenPlaceholder},
	{name: ruleSlackHook, lits: []string{"https://hooks.slack.com/"}, inner: true,
		expr:  `https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_]+/[A-Za-z0-9_]+/[A-Za-z0-9_/]{8,}`,
		check: notTokenPlaceholder},
	{name: ruleStripe, lits: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"},
		expr: `[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b`, check: notTokenPlaceholder},
	{name: "Stripe webhook secret", hint: "the secret in $STRIPE_WEBHOOK_SECRET", lits: []string{"whsec_"},
		expr: `whsec_[A-Za-z0-9+/=]{32,}`, check: body(6, twoClasses)},
	{name: ruleGoogle, lits: []string{"AIza"}, expr: `AIza[0-9A-Za-z_\-]{35}`, check: notTokenPlaceholder},
	{name: "Google OAuth client secret", hint: "the secret in $GOOGLE_CLIENT_SECRET", lits: []string{"GOCSPX-"},
		expr: `GOCSPX-[A-Za-z0-9_\-]{28}`, check: body(7, twoClasses)},
	{name: "Google OAuth token", hint: "the token in $GOOGLE_REFRESH_TOKEN", lits: []string{"1//0"},
		expr: `1//0[A-Za-z0-9_\-]{40,}`, check: body(4, threeClasses)},
	{name: "Google OAuth token", hint: "the token in $GOOGLE_REFRESH_TOKEN", lits: []string{"ya29."},
		expr: `ya29\.[A-Za-z0-9_\-]{30,}`, check: body(5, threeClasses)},
	{name: ruleAnthropic, lits: []string{"sk-ant-"}, expr: `sk-ant-[A-Za-z0-9_\-]{20,}`, check: body(7, mixedAlnum)},
	// OpenAI keys: sk- followed by base62 (legacy), or sk-proj-, sk-svcacct-,
	// sk-admin- followed by base64url. Requiring upper, lower and digit
	// keeps kebab-case words after "sk-" out.
	{name: ruleOpenAI, lits: []string{"sk-"},
		expr: `sk-[A-Za-z0-9_\-]{20,}`,
		check: func(text string, m []int) bool {
			v := text[m[0]:m[1]]
			return !strings.HasPrefix(v, "sk-ant-") && notTokenPlaceholder(text, m) && mixedAlnum(v[3:])
		}},
	{name: ruleNPM, lits: []string{"npm_"}, expr: `npm_[A-Za-z0-9]{36}\b`, check: notTokenPlaceholder},
	{name: "Mapbox secret token", hint: "the token in $MAPBOX_SECRET_TOKEN", lits: []string{"sk.eyJ"},
		expr: `sk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}`, check: notTokenPlaceholder},
	{name: "Grafana token", hint: "the token in $GRAFANA_TOKEN", lits: []string{"eyJrIjoi"},
		expr: `eyJrIjoi[A-Za-z0-9+/]{40,}={0,2}`, check: body(8, mixedAlnum)},
	{name: ruleJWT, lits: []string{"eyJ"}, max: 8192,
		expr: `eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{10,}`},
	{name: ruleAWSSecret, lits: []string{"aws_secret", "awssecret", "aws-secret"}, fold: true, inner: true, group: 1, max: 100,
		expr: `(?i)aws[_\-]?secret[_\-]?(?:access[_\-]?)?key["'\x60]?\s*(?::=|=>|[:=])\s*["'\x60]?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`,
		check: func(text string, m []int) bool {
			v := text[m[2]:m[3]]
			return !placeholder(v) && classes(v) >= 2
		}},
	// Azure: storage and Service Bus keys in connection strings, SAS
	// signatures in URLs, Entra ID (Azure AD) client secrets.
	{name: "Azure account key", hint: "the key in $AZURE_STORAGE_KEY", lits: []string{"AccountKey=", "SharedAccessKey="}, fold: true, inner: true, group: 1,
		expr: `(?i:accountkey|sharedaccesskey)=([A-Za-z0-9+/]{40,100}={0,2})`, check: body1(1, 0, mixedAlnum)},
	{name: "Azure SAS signature", hint: "the SAS token in $AZURE_STORAGE_SAS_TOKEN", lits: []string{"sig="}, group: 1,
		expr: `sig=([A-Za-z0-9%+/=]{40,120})`, check: sasSignature},
	{name: "Azure client secret", hint: "the secret in $AZURE_CLIENT_SECRET", lits: []string{"Q~"}, mid: true, group: 1,
		expr:  `(?:^|[^A-Za-z0-9_~.\-])([A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|$)`,
		check: body1(1, 0, threeClasses)},
	{name: "Hugging Face token", hint: "the token in $HF_TOKEN", lits: []string{"hf_", "api_org_"},
		expr: `(?:hf|api_org)_[A-Za-z]{34}\b`,
		check: func(text string, m []int) bool {
			return body(strings.LastIndexByte(text[m[0]:m[1]], '_')+1, randomLetters)(text, m)
		}},
	{name: "Groq API key", hint: "the key in $GROQ_API_KEY", lits: []string{"gsk_"}, expr: `gsk_[A-Za-z0-9]{52}\b`, check: body(4, mixedAlnum)},
	{name: "Replicate token", hint: "the token in $REPLICATE_API_TOKEN", lits: []string{"r8_"}, expr: `r8_[A-Za-z0-9]{37}\b`, check: body(3, twoClasses)},
	{name: "PyPI token", hint: "the token in $PYPI_TOKEN", lits: []string{"pypi-AgE"}, expr: `pypi-AgE[A-Za-z0-9_\-]{50,}`, check: body(8, twoClasses)},
	{name: "Docker Hub token", hint: "the token in $DOCKERHUB_TOKEN", lits: []string{"dckr_pat_", "dckr_oat_"},
		expr: `dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}`, check: body(9, twoClasses)},
	{name: "SendGrid API key", hint: "the key in $SENDGRID_API_KEY", lits: []string{"SG."},
		expr: `SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}`, check: body(3, mixedAlnum)},
	{name: "Twilio API key", hint: "the key in $TWILIO_API_KEY", lits: []string{"SK"}, expr: `SK[0-9a-f]{32}\b`, check: body(2, hexMixed)},
	{name: "DigitalOcean token", hint: "the token in $DIGITALOCEAN_TOKEN", lits: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		expr: `do[opr]_v1_[a-f0-9]{64}\b`, check: body(7, hexMixed)},
	{name: "Shopify token", hint: "the token in $SHOPIFY_ACCESS_TOKEN", lits: []string{"shpat_", "shpca_", "shppa_", "shpss_"},
		expr: `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`, check: body(6, hexMixed)},
	{name: "Vault token", hint: "the token in $VAULT_TOKEN", lits: []string{"hvs.", "hvb.", "hvr."},
		expr: `hv[sbr]\.[A-Za-z0-9_\-]{24,}`, check: body(4, threeClasses)},
	// Vault's older tokens, s. and 24 base62 characters, look too much like
	// a method call on s; they are caught where the line speaks of Vault or
	// a token (X-Vault-Token: s.…, vault login s.…).
	{name: "Vault token", hint: "the token in $VAULT_TOKEN", lits: []string{"s."}, max: 30,
		expr: `s\.[A-Za-z0-9]{24}\b`,
		check: func(text string, m []int) bool {
			line := text[max(0, m[0]-48):m[0]]
			line = asciiLower(line[strings.LastIndexByte(line, '\n')+1:])
			return body(2, randomAlnum)(text, m) && (strings.Contains(line, "vault") || strings.Contains(line, "token"))
		}},
	{name: "Databricks token", hint: "the token in $DATABRICKS_TOKEN", lits: []string{"dapi"},
		expr: `dapi[a-f0-9]{32}(?:-\d+)?\b`, check: body(4, hexMixed)},
	{name: "Discord bot token", hint: "the token in $DISCORD_BOT_TOKEN", lits: []string{"MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"}, max: 80,
		expr: `[MNO][A-Za-z0-9]{22,26}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}`, check: discordToken},
	{name: "Discord webhook URL", hint: "the webhook URL in $DISCORD_WEBHOOK_URL", inner: true,
		lits: []string{"https://discord", "https://canary.discord", "https://ptb.discord"},
		expr: `https://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d{17,20}/[A-Za-z0-9_\-]{60,68}`, check: lastPartSlash},
	{name: "Telegram bot token", hint: "the token in $TELEGRAM_BOT_TOKEN", lits: []string{":AA"}, mid: true, group: 1,
		expr: `(?:^|[^A-Za-z0-9_\-:])(\d{8,10}:AA[A-Za-z0-9_\-]{33})(?:[^A-Za-z0-9_\-]|$)`, check: body1(1, 11, twoClasses)},
	{name: "Atlassian API token", hint: "the token in $JIRA_API_TOKEN", lits: []string{"ATATT3", "ATCTT3"}, max: 400,
		expr: `AT[AC]TT3[A-Za-z0-9_\-=]{100,}`, check: body(6, threeClasses)},
	{name: "Linear API key", hint: "the key in $LINEAR_API_KEY", lits: []string{"lin_api_", "lin_oauth_"},
		expr: `lin_(?:api|oauth)_[A-Za-z0-9]{40,64}\b`, check: lastUnderscore(twoClasses)},
	{name: "Sentry token", hint: "the token in $SENTRY_AUTH_TOKEN", lits: []string{"sntryu_", "sntrys_"},
		expr: `sntry[us]_[A-Za-z0-9_=+/\-]{40,}`, check: body(7, twoClasses)},
	{name: "Doppler token", hint: "the token in $DOPPLER_TOKEN", lits: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."},
		expr: `dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[A-Za-z0-9_\-]{2,35}\.)?[A-Za-z0-9]{40,44}\b`, check: lastPart(mixedAlnum)},
	{name: "Pulumi token", hint: "the token in $PULUMI_ACCESS_TOKEN", lits: []string{"pul-"}, expr: `pul-[a-f0-9]{40}\b`, check: body(4, hexMixed)},
	{name: "Terraform Cloud token", hint: "the token in $TF_TOKEN_app_terraform_io", lits: []string{".atlasv1."}, mid: true,
		expr: `\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,70}`, check: lastPart(threeClasses)},
	{name: "Mailgun API key", hint: "the key in $MAILGUN_API_KEY", lits: []string{"key-"}, expr: `key-[a-f0-9]{32}\b`, check: body(4, hexMixed)},
	{name: "Mailchimp API key", hint: "the key in $MAILCHIMP_API_KEY", lits: []string{"-us"}, mid: true,
		expr: `\b[a-f0-9]{32}-us\d{1,2}\b`, check: func(text string, m []int) bool { return hexMixed(text[m[0] : m[0]+32]) }},
	{name: "New Relic key", hint: "the key in $NEW_RELIC_API_KEY", lits: []string{"NRAK-"}, expr: `NRAK-[A-Z0-9]{27}\b`, check: body(5, hexMixed)},
	{name: "New Relic key", hint: "the key in $NEW_RELIC_API_KEY", lits: []string{"NRII-", "NRIQ-"},
		expr: `NRI[IQ]-[A-Za-z0-9_\-]{32}`, check: body(5, twoClasses)},
	{name: "New Relic key", hint: "the key in $NEW_RELIC_LICENSE_KEY", lits: []string{"NRAL"}, mid: true,
		expr: `\b[a-f0-9]{36}NRAL\b`, check: func(text string, m []int) bool { return hexMixed(text[m[0] : m[1]-4]) }},
	{name: "Postman API key", hint: "the key in $POSTMAN_API_KEY", lits: []string{"PMAK-"},
		expr: `PMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`, check: body(5, hexMixed)},
	{name: "Grafana token", hint: "the token in $GRAFANA_TOKEN", lits: []string{"glc_"}, expr: `glc_[A-Za-z0-9+/]{32,}={0,2}`, check: body(4, mixedAlnum)},
	{name: "Grafana token", hint: "the token in $GRAFANA_TOKEN", lits: []string{"glsa_"},
		expr: `glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}\b`, check: body(5, mixedAlnum)},
	{name: "Heroku API key", hint: "the key in $HEROKU_API_KEY", lits: []string{"HRKU-"}, expr: `HRKU-[A-Za-z0-9_\-]{30,}`, check: body(5, twoClasses)},
	{name: "Fly.io token", hint: "the token in $FLY_API_TOKEN", lits: []string{"fm1a_", "fm1r_", "fm2_", "fo1_"},
		expr: `(?:fm1[ar]|fm2)_[A-Za-z0-9+/=_\-]{40,}|fo1_[A-Za-z0-9_\-]{39,}`, check: body(4, threeClasses)},
	{name: "Supabase key", hint: "the key in $SUPABASE_SERVICE_ROLE_KEY", lits: []string{"sbp_"}, expr: `sbp_[a-f0-9]{40}\b`, check: body(4, hexMixed)},
	{name: "Supabase key", hint: "the key in $SUPABASE_SECRET_KEY", lits: []string{"sb_secret_"},
		expr: `sb_secret_[A-Za-z0-9_\-]{20,}`, check: body(10, mixedAlnum)},
	{name: "Vercel token", hint: "the token in $VERCEL_TOKEN", lits: []string{"vcp_", "vci_", "vca_", "vcr_", "vck_"},
		expr: `vc[pciark]_[A-Za-z0-9]{24,}\b`, check: body(4, mixedAlnum)},
	{name: "Netlify token", hint: "the token in $NETLIFY_AUTH_TOKEN", lits: []string{"nfp_", "nfo_"},
		expr: `nf[po]_[A-Za-z0-9]{36,}\b`, check: body(4, mixedAlnum)},
	{name: "Okta API token", hint: "the token in $OKTA_API_TOKEN", lits: []string{"SSWS "}, group: 1,
		expr: `SSWS +(00[A-Za-z0-9_\-]{40})`, check: body1(1, 2, threeClasses)},
	{name: "Square token", hint: "the token in $SQUARE_ACCESS_TOKEN", lits: []string{"sq0atp-", "sq0csp-"},
		expr: `sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}`, check: body(7, twoClasses)},
	{name: "Square token", hint: "the token in $SQUARE_ACCESS_TOKEN", lits: []string{"EAAA"},
		expr: `EAAA[A-Za-z0-9_\-+=]{60}`, check: body(4, mixedAlnum)},
	{name: "Airtable token", hint: "the token in $AIRTABLE_TOKEN", lits: []string{"pat"},
		expr: `pat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b`, check: lastPart(hexMixed)},
	{name: "Notion token", hint: "the token in $NOTION_TOKEN", lits: []string{"secret_"},
		expr: `secret_[A-Za-z0-9]{43}\b`, check: body(7, randomAlnum)},
	{name: "Notion token", hint: "the token in $NOTION_TOKEN", lits: []string{"ntn_"},
		expr: `ntn_[A-Za-z0-9]{40,50}\b`, check: body(4, mixedAlnum)},
	{name: "Asana token", hint: "the token in $ASANA_TOKEN", lits: []string{"1/", "2/"}, max: 80,
		expr: `[12]/\d{10,20}(?:/\d{10,20})?:[a-f0-9]{32}\b`, check: func(text string, m []int) bool { return hexMixed(text[m[1]-32 : m[1]]) }},
	{name: "Cloudflare origin CA key", hint: "the key in $CF_ORIGIN_CA_KEY", lits: []string{"v1.0-"}, max: 200,
		expr: `v1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b`, check: body(5, hexMixed)},
	{name: "Firebase server key", hint: "the key in $FCM_SERVER_KEY", lits: []string{":APA91b"}, mid: true,
		expr: `\bAAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}`, check: notTokenPlaceholder},
}

// notTokenPlaceholder rejects the documentation stand-ins for prefixed
// tokens (AKIA…EXAMPLE, ghp_xxxx…). It is narrower than placeholder: a
// random token may well contain "test" or "null" by chance.
func notTokenPlaceholder(text string, m []int) bool {
	l := strings.ToLower(text[m[0]:m[1]])
	for _, w := range []string{"example", "xxxx", "your", "placeholder", "redacted", "0000000000", "..."} {
		if strings.Contains(l, w) {
			return false
		}
	}
	return true
}

func lastUnderscore(ok func(string) bool) func(string, []int) bool {
	return func(text string, m []int) bool {
		v := text[m[0]:m[1]]
		return notTokenPlaceholder(text, m) && ok(v[strings.LastIndexByte(v, '_')+1:])
	}
}

func lastPartSlash(text string, m []int) bool {
	v := text[m[0]:m[1]]
	return notTokenPlaceholder(text, m) && threeClasses(v[strings.LastIndexByte(v, '/')+1:])
}

// discordToken: a Discord bot token starts with the bot's numeric id in
// base64, which no other dotted string does by chance.
func discordToken(text string, m []int) bool {
	v := text[m[0]:m[1]]
	id, err := base64.RawStdEncoding.DecodeString(v[:strings.IndexByte(v, '.')])
	if err != nil || len(id) < 17 || len(id) > 20 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return notTokenPlaceholder(text, m) && twoClasses(v[strings.LastIndexByte(v, '.')+1:])
}

// sasSignature: a sig= parameter is an Azure SAS signature when it decodes
// to the base64 of a 32-byte HMAC and the same URL or connection string
// carries the SAS version or expiry (sv=, se=).
func sasSignature(text string, m []int) bool {
	sig, err := url.PathUnescape(text[m[2]:m[3]])
	if err != nil || len(sig) < 43 || len(sig) > 44 || !threeClasses(sig) {
		return false
	}
	if _, err := base64.StdEncoding.DecodeString(strings.TrimRight(sig, "=") + "="); err != nil {
		return false
	}
	// The rest of the URL: the run of text around the signature up to a
	// space or quote, at most 2 KB each way.
	s, e := m[0], m[1]
	for s > 0 && m[0]-s < 2048 && strings.IndexByte(" \t\r\n\"'<>`", text[s-1]) < 0 {
		s--
	}
	for e < len(text) && e-m[1] < 2048 && strings.IndexByte(" \t\r\n\"'<>`", text[e]) < 0 {
		e++
	}
	run := text[s:e]
	return strings.Contains(run, "sv=") || strings.Contains(run, "se=")
}

// base64KeyBlock: the base64 of a PEM private key block, as kubeconfig's
// client-key-data and many CI variables hold it; like a PEM header, it is
// only a key when key material follows the header.
func base64KeyBlock(text string, m []int) bool {
	v := text[m[0]:m[1]]
	v = v[:min(len(v), 200)&^3]
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	d := string(b)
	h := strings.Index(d, "PRIVATE KEY")
	if h < 0 {
		return false
	}
	e := strings.Index(d[h:], "-----")
	return e >= 0 && keyMaterialAfter(d, h+e+5)
}

// puttyMaterialAfter: a PuTTY key file is a key when its Private-Lines
// header is followed by key material.
func puttyMaterialAfter(text string, end int) bool {
	rest := text[end:min(len(text), end+4096)]
	i := strings.Index(rest, "Private-Lines:")
	if i < 0 {
		return false
	}
	j := i + len("Private-Lines:")
	for j < len(rest) && (rest[j] == ' ' || rest[j] >= '0' && rest[j] <= '9') {
		j++
	}
	return keyMaterialAfter(rest, j)
}
