package secrets

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// The detection corpus: fake secrets in the real formats of many
// providers, in the places people paste them. Every value is built here
// from a fixed seed, so no real-format token sits in the source (GitHub
// push protection and other scanners stay quiet) and the run is the same
// every time.

const (
	b62    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64url = b62 + "-_"
	hexLo  = "0123456789abcdef"
	upAlnm = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	digits = "0123456789"
	lower  = "abcdefghijklmnopqrstuvwxyz"
)

type gen struct{ r *rand.Rand }

func (g gen) s(alpha string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[g.r.Intn(len(alpha))]
	}
	return string(b)
}

func (g gen) bytes(n int) []byte {
	b := make([]byte, n)
	g.r.Read(b)
	return b
}

func (g gen) b64(n int) string { return base64.StdEncoding.EncodeToString(g.bytes(n)) }

func (g gen) uuid() string {
	h := g.s(hexLo, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

func (g gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// A provider is one credential format: how to make a fake one, and the
// variable it usually lives in.
type provider struct {
	name string
	env  string
	tok  func(g gen) string
	// named: the format has no prefix of its own, so it can only be told
	// by the name it is assigned to; bare contexts are left out.
	named bool
}

var providers = []provider{
	// formats the scanner caught before
	{name: "AWS", env: "AWS_ACCESS_KEY_ID", tok: func(g gen) string { return "AK" + "IA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) }},
	{name: "GitHub", env: "GITHUB_TOKEN", tok: func(g gen) string { return g.pick("ghp", "gho", "ghs") + "_" + g.s(b62, 36) }},
	{name: "Slack bot", env: "SLACK_BOT_TOKEN", tok: func(g gen) string {
		return "xo" + "xb-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s(b62, 24)
	}},
	{name: "Stripe live", env: "STRIPE_SECRET_KEY", tok: func(g gen) string { return "sk_" + "live_" + g.s(b62, 24) }},
	{name: "OpenAI", env: "OPENAI_API_KEY", tok: func(g gen) string {
		return "sk-" + "proj-" + g.s(b64url, 74) + "T3Blbk" + "FJ" + g.s(b64url, 74)
	}},
	{name: "Anthropic", env: "ANTHROPIC_API_KEY", tok: func(g gen) string { return "sk-" + "ant-api03-" + g.s(b64url, 93) + "AA" }},
	{name: "Google API", env: "GOOGLE_API_KEY", tok: func(g gen) string { return "AI" + "za" + g.s(b64url, 35) }},
	{name: "npm", env: "NPM_TOKEN", tok: func(g gen) string { return "npm" + "_" + g.s(b62, 36) }},
	// formats the issue found missing
	{name: "Azure storage key", env: "AZURE_STORAGE_CONNECTION_STRING", tok: func(g gen) string {
		return "DefaultEndpointsProtocol=https;AccountName=acct" + g.s(lower, 6) + ";Account" + "Key=" + g.b64(64) + ";EndpointSuffix=core.windows.net"
	}},
	{name: "Azure Service Bus key", env: "SERVICEBUS_CONNECTION", tok: func(g gen) string {
		return "Endpoint=sb://ns" + g.s(lower, 5) + ".servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccess" + "Key=" + g.b64(32)
	}},
	{name: "Azure SAS", env: "AZURE_SAS_URL", tok: func(g gen) string {
		return "https://acct" + g.s(lower, 6) + ".blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00:00:00Z&spr=https&s" +
			"ig=" + url.QueryEscape(g.b64(32))
	}},
	{name: "Azure client secret", env: "AZURE_CLIENT_SECRET", tok: func(g gen) string {
		return g.s(b62, 3) + g.s(digits, 1) + "Q" + "~" + g.s(b62+"_~.-", 34)
	}},
	{name: "GitLab deploy/runner", env: "CI_DEPLOY_TOKEN", tok: func(g gen) string {
		return "gl" + g.pick("dt-", "rt-", "pat-", "cbt-", "ptt-", "ft-") + g.s(b62, 20)
	}},
	{name: "GitLab runner registration", env: "RUNNER_REGISTRATION_TOKEN", tok: func(g gen) string { return "GR13" + "48941" + g.s(b64url, 20) }},
	{name: "Google OAuth client secret", env: "GOOGLE_CLIENT_SECRET", tok: func(g gen) string { return "GOC" + "SPX-" + g.s(b64url, 28) }},
	{name: "Google OAuth refresh token", env: "GOOGLE_REFRESH_TOKEN", tok: func(g gen) string { return "1//" + "0" + g.s(b64url, 100) }},
	{name: "Google OAuth access token", env: "GOOGLE_ACCESS_TOKEN", tok: func(g gen) string { return "ya" + "29." + g.s(b64url, 150) }},
	{name: "Hugging Face", env: "HF_TOKEN", tok: func(g gen) string { return "hf" + "_" + g.s(b62[:52], 34) }},
	{name: "Groq", env: "GROQ_API_KEY", tok: func(g gen) string { return "gs" + "k_" + g.s(b62, 52) }},
	{name: "Replicate", env: "REPLICATE_API_TOKEN", tok: func(g gen) string { return "r8" + "_" + g.s(b62, 37) }},
	{name: "Stripe test", env: "STRIPE_SECRET_KEY", tok: func(g gen) string { return g.pick("sk", "rk") + "_test_" + g.s(b62, 99) }},
	{name: "Stripe webhook", env: "STRIPE_WEBHOOK_SECRET", tok: func(g gen) string { return "wh" + "sec_" + g.s(b62, 32) }},
	{name: "Slack app", env: "SLACK_APP_TOKEN", tok: func(g gen) string {
		return "xa" + "pp-1-A" + g.s(upAlnm, 10) + "-" + g.s(digits, 13) + "-" + g.s(hexLo, 64)
	}},
	{name: "age", env: "SOPS_AGE_KEY", tok: func(g gen) string { return "AGE-SECRET-" + "KEY-1" + g.s(bech32, 58) }},
	{name: "PyPI", env: "PYPI_TOKEN", tok: func(g gen) string { return "py" + "pi-AgEIcHlwaS5vcmc" + g.s(b64url, 150) }},
	{name: "Docker Hub", env: "DOCKERHUB_TOKEN", tok: func(g gen) string { return "dckr" + "_pat_" + g.s(b64url, 27) }},
	{name: "SendGrid", env: "SENDGRID_API_KEY", tok: func(g gen) string { return "S" + "G." + g.s(b64url, 22) + "." + g.s(b64url, 43) }},
	{name: "Twilio API key", env: "TWILIO_API_KEY", tok: func(g gen) string { return "S" + "K" + g.s(hexLo, 32) }},
	{name: "Twilio auth token", env: "TWILIO_AUTH_TOKEN", named: true, tok: func(g gen) string { return g.s(hexLo, 32) }},
	{name: "DigitalOcean", env: "DIGITALOCEAN_TOKEN", tok: func(g gen) string { return "do" + g.pick("p", "o", "r") + "_v1_" + g.s(hexLo, 64) }},
	{name: "Shopify", env: "SHOPIFY_ACCESS_TOKEN", tok: func(g gen) string { return "shp" + g.pick("at", "ca", "pa", "ss") + "_" + g.s(hexLo, 32) }},
	{name: "HashiCorp Vault", env: "VAULT_TOKEN", tok: func(g gen) string { return "hv" + g.pick("s", "b") + "." + "CAES" + g.s(b64url, 90) }},
	// Vault's older tokens (s. and 24 characters) read like a method call
	// on s when they stand alone.
	{name: "HashiCorp Vault (legacy)", env: "VAULT_TOKEN", named: true, tok: func(g gen) string { return "s" + "." + g.s(b62, 24) }},
	{name: "Databricks", env: "DATABRICKS_TOKEN", tok: func(g gen) string { return "da" + "pi" + g.s(hexLo, 32) }},
	{name: "Discord bot", env: "DISCORD_BOT_TOKEN", tok: func(g gen) string {
		id := g.s("123456789", 1) + g.s(digits, 17)
		return base64.RawStdEncoding.EncodeToString([]byte(id)) + "." + g.s(b64url, 6) + "." + g.s(b64url, 38)
	}},
	{name: "Discord webhook", env: "DISCORD_WEBHOOK_URL", tok: func(g gen) string {
		return "https://" + g.pick("", "canary.") + "discord" + g.pick("", "app") + ".com/api/web" + "hooks/" + g.s(digits, 19) + "/" + g.s(b64url, 68)
	}},
	{name: "Telegram bot", env: "TELEGRAM_BOT_TOKEN", tok: func(g gen) string { return g.s("123456789", 1) + g.s(digits, 9) + ":A" + "A" + g.s(b64url, 33) }},
	{name: "Atlassian", env: "JIRA_API_TOKEN", tok: func(g gen) string { return "ATA" + "TT3xFfGF0" + g.s(b64url, 170) + "=" + g.s(hexLo, 8) }},
	{name: "Linear", env: "LINEAR_API_KEY", tok: func(g gen) string { return "lin" + "_api_" + g.s(b62, 40) }},
	{name: "Sentry", env: "SENTRY_AUTH_TOKEN", tok: func(g gen) string { return "sntr" + "yu_" + g.s(hexLo, 64) }},
	{name: "Doppler", env: "DOPPLER_TOKEN", tok: func(g gen) string { return "dp." + g.pick("pt", "st.dev", "sa", "ct") + "." + g.s(b62, 43) }},
	{name: "Pulumi", env: "PULUMI_ACCESS_TOKEN", tok: func(g gen) string { return "pu" + "l-" + g.s(hexLo, 40) }},
	{name: "Terraform Cloud", env: "TFE_TOKEN", tok: func(g gen) string { return g.s(b62, 14) + ".atlas" + "v1." + g.s(b62, 67) }},
	{name: "Mailgun", env: "MAILGUN_API_KEY", tok: func(g gen) string { return "ke" + "y-" + g.s(hexLo, 32) }},
	{name: "Mailchimp", env: "MAILCHIMP_API_KEY", tok: func(g gen) string { return g.s(hexLo, 32) + "-u" + "s" + fmt.Sprint(1+g.r.Intn(21)) }},
	{name: "New Relic", env: "NEW_RELIC_API_KEY", tok: func(g gen) string { return "NR" + "AK-" + g.s(upAlnm, 27) }},
	{name: "Postman", env: "POSTMAN_API_KEY", tok: func(g gen) string { return "PM" + "AK-" + g.s(hexLo, 24) + "-" + g.s(hexLo, 34) }},
	{name: "Grafana", env: "GRAFANA_SERVICE_ACCOUNT_TOKEN", tok: func(g gen) string {
		if g.r.Intn(2) == 0 {
			return "gl" + "c_" + base64.StdEncoding.EncodeToString([]byte(`{"o":"`+g.s(digits, 6)+`","n":"stack-`+g.s(digits, 6)+`-hm-read","k":"`+g.s(b62, 24)+`","m":{"r":"prod-eu-west-0"}}`))
		}
		return "gl" + "sa_" + g.s(b62, 32) + "_" + g.s(hexLo, 8)
	}},
	{name: "Heroku", env: "HEROKU_API_KEY", tok: func(g gen) string { return "HR" + "KU-AA" + g.s(b64url, 58) }},
	{name: "Heroku (UUID)", env: "HEROKU_API_KEY", named: true, tok: func(g gen) string { return g.uuid() }},
	{name: "Fly.io", env: "FLY_API_TOKEN", tok: func(g gen) string { return "Fly" + "V1 fm2_" + g.b64(200) }},
	{name: "Supabase", env: "SUPABASE_ACCESS_TOKEN", tok: func(g gen) string { return "sb" + "p_" + g.s(hexLo, 40) }},
	{name: "Vercel", env: "VERCEL_TOKEN", named: true, tok: func(g gen) string { return g.s(b62, 24) }},
	{name: "Netlify", env: "NETLIFY_AUTH_TOKEN", tok: func(g gen) string { return "nf" + "p_" + g.s(b62, 36) }},
	{name: "Okta", env: "OKTA_API_TOKEN", named: true, tok: func(g gen) string { return "00" + g.s(b64url, 40) }},
	{name: "Square", env: "SQUARE_ACCESS_TOKEN", tok: func(g gen) string {
		if g.r.Intn(2) == 0 {
			return "EA" + "AA" + g.s(b64url, 60)
		}
		return "sq0" + "atp-" + g.s(b64url, 22)
	}},
	{name: "Airtable", env: "AIRTABLE_TOKEN", tok: func(g gen) string { return "pa" + "t" + g.s(b62, 14) + "." + g.s(hexLo, 64) }},
	{name: "Notion", env: "NOTION_TOKEN", tok: func(g gen) string {
		if g.r.Intn(2) == 0 {
			return "nt" + "n_" + g.s(b62, 46)
		}
		return "sec" + "ret_" + g.s(b62, 43)
	}},
	{name: "Asana", env: "ASANA_ACCESS_TOKEN", tok: func(g gen) string { return "2" + "/" + g.s(digits, 16) + "/" + g.s(digits, 16) + ":" + g.s(hexLo, 32) }},
	{name: "Cloudflare", env: "CLOUDFLARE_API_TOKEN", named: true, tok: func(g gen) string { return g.s(b64url, 40) }},
	{name: "Cloudflare global key", env: "CLOUDFLARE_API_KEY", named: true, tok: func(g gen) string { return g.s(hexLo, 37) }},
	{name: "Mapbox", env: "MAPBOX_SECRET_TOKEN", tok: func(g gen) string {
		return "sk" + ".eyJ1Ijoi" + g.s(b64url, 30) + "." + g.s(b64url, 22)
	}},
	{name: "Firebase", env: "FCM_SERVER_KEY", tok: func(g gen) string { return "AAAA" + g.s(b64url, 7) + ":APA" + "91b" + g.s(b64url, 134) }},
}

// contexts place a value where people paste one. The ones marked bare
// give no name; a value without a format of its own cannot be found there.
var contexts = []struct {
	bare bool
	f    func(g gen, env, v string) string
}{
	{true, func(g gen, env, v string) string {
		return "Rotated the key today; the new one is " + v + " (the old one is revoked)."
	}},
	{false, func(g gen, env, v string) string { return env + "=" + v }},
	{false, func(g gen, env, v string) string {
		return "deploy:\n  " + strings.ToLower(env) + ": " + v + "\n  region: eu-west-1"
	}},
	{false, func(g gen, env, v string) string {
		return `{"name": "svc", "` + camel(env) + `": "` + v + `", "retries": 3}`
	}},
	{false, func(g gen, env, v string) string { return "export " + env + "=\"" + v + "\"" }},
	{true, func(g gen, env, v string) string {
		return "client := sdk.New(\"" + v + "\", sdk.WithTimeout(5*time.Second))"
	}},
	{true, func(g gen, env, v string) string { return "for staging use `" + v + "` until Friday" }},
	{false, func(g gen, env, v string) string {
		return "curl -H \"Authorization: Bearer " + v + "\" https://api.internal/v1/items"
	}},
	{false, func(g gen, env, v string) string { return "- name: " + env + "\n  value: \"" + v + "\"" }},
	{false, func(g gen, env, v string) string { return "os.environ[\"" + env + "\"] = '" + v + "'" }},
	{true, func(g gen, env, v string) string { return "| prod | " + v + " | rotated 2024-05 |" }},
	{false, func(g gen, env, v string) string {
		return "GET https://api.service.io/v2/events?limit=10&api_key=" + v + "&page=2"
	}},
	{false, func(g gen, env, v string) string {
		return "FROM alpine:3.20\nENV " + env + " " + v + "\nRUN ./build.sh"
	}},
	{false, func(g gen, env, v string) string { return "[auth]\ntoken = \"" + v + "\"\nendpoint = \"https://api\"" }},
	{false, func(g gen, env, v string) string { return "client = Client(api_key=\"" + v + "\", timeout=5)" }},
}

// camel turns SOME_NAME into someName.
func camel(env string) string {
	parts := strings.Split(strings.ToLower(env), "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

type corpusCase struct{ provider, text string }

// shapes are credentials recognised by where they sit rather than by a
// format: key files, .netrc, command lines, XML, Makefiles, calls.
var shapes = []struct {
	name  string
	cases func(g gen) []string
}{
	{"PuTTY key", func(g gen) []string {
		var out []string
		for _, v := range []string{"2", "3"} {
			for _, alg := range []string{"ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256"} {
				out = append(out, "PuTTY-User-Key-File-"+v+": "+alg+"\nEncryption: none\nComment: deploy@ci\nPublic-Lines: 2\n"+
					g.b64(48)+"\n"+g.b64(20)+"\nPrivate-Lines: 1\n"+g.b64(48)+"\nPrivate-MAC: "+g.s(hexLo, 64))
			}
		}
		return append(out, "key file:\n```\nPuTTY-User-Key-File-3: ssh-ed25519\r\nEncryption: none\r\nComment: x\r\nPublic-Lines: 2\r\n"+g.b64(30)+"\r\nPrivate-Lines: 1\r\n"+g.b64(30)+"\r\n```")
	}},
	{"netrc", func(g gen) []string {
		p := func() string { return g.s(b62, 8+g.r.Intn(12)) }
		return []string{
			"machine api.heroku.com login me@corp.io password " + p(),
			"machine github.com\n  login deploy-bot\n  password " + "gh" + "p_" + g.s(b62, 36),
			"~/.netrc:\nmachine gitlab.internal\nlogin ci\npassword " + p() + "\n\nmachine nexus.internal login ci password " + p(),
			"default login anonymous password " + p(),
			"machine ftp.example.org login alice password \"" + p() + "\"",
			"cat > ~/.netrc <<EOF\nmachine registry.corp login robot$builder password " + p() + "\nEOF",
			"machine pypi.org\n\tlogin __token__\n\tpassword " + p(),
			"machine 10.0.0.7 login root password " + g.s(lower, 5) + g.s(digits, 3),
		}
	}},
	{"curl -u", func(g gen) []string {
		p := func() string { return g.s(b62, 10+g.r.Intn(10)) }
		return []string{
			"curl -u admin:" + p() + " https://jenkins.internal/api/json",
			"curl -s --user 'deploy:" + p() + "' -X POST https://nexus/service/rest",
			"curl -u \"ci-bot:" + p() + "\" https://artifactory/api/repositories",
			"$ curl -fsSL -uapi:" + p() + " https://api.mailgun.net/v3/domains",
			"curl --proxy-user proxy:" + p() + " -x http://proxy:3128 https://example.org",
			"curl -u elastic:" + g.s(lower, 6) + g.s(digits, 2) + " localhost:9200/_cat/indices",
			"/usr/bin/curl -k -u svc_backup:" + p() + " https://10.1.2.3/api",
			"wget --user=ci --password " + p() + " https://repo/artifact.zip",
		}
	}},
	{"sshpass", func(g gen) []string {
		p := func() string { return g.s(b62, 8+g.r.Intn(10)) }
		return []string{
			"sshpass -p " + p() + " ssh root@10.0.0.5",
			"sshpass -p '" + p() + "' scp dump.sql backup@db2:/tmp",
			"sshpass -p\"" + p() + "\" rsync -a ./ deploy@web1:/srv",
			"sshpass -p" + p() + " ssh -o StrictHostKeyChecking=no pi@raspberrypi",
			"for h in a b; do sshpass -p " + p() + " ssh admin@$h uptime; done",
			"ansible all -m ping # first: sshpass -p " + p() + " ssh-copy-id ops@bastion",
		}
	}},
	{"mysql -p", func(g gen) []string {
		p := func() string { return g.s(b62, 8+g.r.Intn(10)) }
		return []string{
			"mysql -u root -p" + p() + " -h 127.0.0.1 app",
			"mysqldump -uroot -p'" + p() + "' --all-databases > all.sql",
			"mysql --user=app --password=" + p() + " app < schema.sql",
			"mariadb -h db -u admin -p\"" + p() + "\" -e 'show databases'",
			"mysqladmin -u root -p" + p() + " status",
			"docker exec -it db mysql -uroot -p" + p(),
			"mongosh \"mongodb://db:27017\" -u admin -p " + p() + " --authenticationDatabase admin",
			"redis-cli -h cache -a " + p() + " ping",
			"ldapsearch -x -D cn=admin,dc=corp -w " + p() + " -b dc=corp",
			"sqlcmd -S db,1433 -U sa -P " + p() + " -Q 'select 1'",
			"keytool -importkeystore -srckeystore a.p12 -srcstorepass " + p() + " -destkeystore b.jks",
			"openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:" + p(),
			"htpasswd -bc /etc/nginx/.htpasswd admin " + p(),
			"smbclient //fs/share -U 'CORP\\svc%" + p() + "'",
		}
	}},
	{"docker login -p", func(g gen) []string {
		p := func() string { return g.s(b62, 12+g.r.Intn(20)) }
		return []string{
			"docker login -u ci -p " + p() + " registry.corp.io",
			"docker login registry.gitlab.com -u deploy --password '" + p() + "'",
			"podman login -u robot -p" + p() + " quay.io",
			"helm registry login ghcr.io -u me -p " + p(),
			"echo done && docker login --username=ci --password=" + p() + " harbor.local",
			"sudo docker login -u admin -p \"" + p() + "\" nexus:8082",
		}
	}},
	{"CLI token flag", func(g gen) []string {
		return []string{
			"vercel deploy --prod --token " + g.s(b62, 24),
			"netlify deploy --auth " + g.s(b64url, 43) + " --dir dist",
			"terraform login # or: tfx --token " + g.s(b62, 14) + g.s(b62, 40),
			"gitlab-runner register --url https://gitlab.corp --registration-token " + g.s(b64url, 20),
			"./bin/sync --api-key " + g.s(hexLo, 32) + " --dry-run",
			"vault login -method=userpass username=ops password=" + g.s(b62, 14),
		}
	}},
	{"XML element", func(g gen) []string {
		p := func() string { return g.s(b62, 16) + g.s("!#%+", 1) + g.s(b62, 4) }
		return []string{
			"<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>" + p() + "</password>\n</server>",
			"<appSettings>\n  <add key=\"StripeApiKey\" value=\"" + p() + "\" />\n</appSettings>",
			"<bean id=\"ds\"><property name=\"password\" value=\"" + p() + "\"/></bean>",
			"<entry key=\"auth.token\">" + p() + "</entry>",
			"<config><apiKey>" + g.s(hexLo, 32) + "</apiKey></config>",
			"<ClientSecret><![CDATA[" + p() + "]]></ClientSecret>",
			"<connectionStrings><add name=\"db\" connectionString=\"Server=db;User Id=sa;Password=" + p() + ";\"/></connectionStrings>",
			"<ns:secret>\n   " + p() + "\n</ns:secret>",
		}
	}},
	{"Makefile ?=", func(g gen) []string {
		return []string{
			"API_TOKEN ?= " + g.s(b62, 32),
			"REGISTRY_PASSWORD ?= " + g.s(b62, 20),
			"export SECRET_KEY ?= " + g.s(b64url, 40),
			"DEPLOY_KEY?=" + g.s(hexLo, 40),
			"build:\n\tdocker build .\n\nNPM_AUTH_TOKEN ?= " + g.s(b62, 36) + "\n",
		}
	}},
	{"setProperty", func(g gen) []string {
		v := func() string { return g.s(b62, 24) }
		return []string{
			"System.setProperty(\"X_TOKEN\", \"" + v() + "\");",
			"System.setProperty(\"db.password\", \"" + v() + "\");",
			"os.Setenv(\"API_KEY\", \"" + v() + "\")",
			"os.environ.setdefault('SLACK_SIGNING_SECRET', '" + v() + "')",
			"headers.set(\"Authorization\", \"Bearer " + v() + "\")",
			"define('AUTH_KEY', '" + v() + "');",
			"props.put(\"client_secret\", \"" + v() + "\")",
			"ENV.fetch(\"STRIPE_TOKEN\", \"" + v() + "\")",
		}
	}},
}

func detectionCorpus() []corpusCase {
	g := gen{rand.New(rand.NewSource(20240611))}
	var out []corpusCase
	for _, p := range providers {
		for _, c := range contexts {
			if c.bare && p.named {
				continue
			}
			out = append(out, corpusCase{p.name, c.f(g, p.env, p.tok(g))})
		}
	}
	for _, s := range shapes {
		for _, text := range s.cases(g) {
			out = append(out, corpusCase{s.name, text})
		}
	}
	return out
}

// TestCorpusDetection measures the share of the corpus found, provider by
// provider (go test -v shows the table), and fails below 95 % overall or
// below 80 % for any one provider.
func TestCorpusDetection(t *testing.T) {
	cases := detectionCorpus()
	type tally struct{ found, total int }
	per := map[string]*tally{}
	var names []string
	found := 0
	for _, c := range cases {
		tl := per[c.provider]
		if tl == nil {
			tl = &tally{}
			per[c.provider] = tl
			names = append(names, c.provider)
		}
		tl.total++
		if len(Scan(c.text)) > 0 {
			tl.found++
			found++
		} else {
			t.Logf("missed (%s): %.160q", c.provider, c.text)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		tl := per[n]
		fmt.Fprintf(&b, "  %-28s %3d/%-3d %5.1f%%\n", n, tl.found, tl.total, 100*float64(tl.found)/float64(tl.total))
		if tl.found*100 < tl.total*80 {
			t.Errorf("%s: found %d of %d", n, tl.found, tl.total)
		}
	}
	rate := 100 * float64(found) / float64(len(cases))
	t.Logf("detection by provider:\n%s  overall %d/%d = %.1f%% over %d providers", b.String(), found, len(cases), rate, len(names))
	if len(cases) < 300 {
		t.Errorf("corpus has %d cases, want 300 or more", len(cases))
	}
	if rate < 95 {
		t.Errorf("found %.1f%% of the corpus, want 95%% or more", rate)
	}
}

// The lookalike corpus: text that looks like secrets and is not. Hashes,
// ids, encoded prose, code, queries, configuration, references, and the
// near misses of every format above.
func lookalikeCorpus() []string {
	g := gen{rand.New(rand.NewSource(19700101))}
	words := strings.Fields(`the deploy cache token rotation failed because service worker queue retry
		backoff limit request memory index build release branch merge review store secret password key
		timeout config client server session user account project pipeline runner agent`)
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = g.pick(words...)
		}
		return strings.Join(w, " ")
	}
	var out []string
	for range 12 {
		sha1, sha256, md5 := g.s(hexLo, 40), g.s(hexLo, 64), g.s(hexLo, 32)
		id := g.uuid()
		b64 := base64.StdEncoding.EncodeToString([]byte(sentence(8 + g.r.Intn(8))))
		out = append(out,
			// hashes and commit ids
			"commit "+sha1+"\nAuthor: Jane Doe <jane@corp.io>",
			"fixed in "+sha1[:7]+" and "+sha1[:12]+", see "+sha1,
			sha256+"  cairn_linux_amd64.tar.gz",
			"sha256: "+sha256,
			"checksum = \""+md5+"\"",
			`ETag: "`+md5+`"`,
			`"integrity": "sha512-`+g.b64(64)+`"`,
			"git checkout "+sha1+" && make",
			"https://github.com/corp/app/commit/"+sha1,
			"image: registry.corp.io/app@sha256:"+sha256,
			// UUIDs
			"request id "+id+" timed out",
			"trace_id="+id+" span_id="+g.s(hexLo, 16),
			`{"uuid": "`+id+`", "kind": "memory"}`,
			"X-Request-Id: "+id,
			"token_id: "+id,
			// base64 of prose
			"data: "+b64,
			`{"payload": "`+b64+`"}`,
			"echo "+b64+" | base64 -d",
			// ordinary prose about secrets
			"Remember to "+sentence(6)+"; the "+g.pick("token", "password", "secret", "API key")+" lives in the vault.",
		)
	}
	out = append(out,
		// code: Go, Python, JavaScript, shell, SQL
		`token := r.Header.Get("Authorization")`,
		`secret := []byte(os.Getenv("JWT_SECRET"))`,
		`if err := os.Setenv("TOKEN_TTL", "3600"); err != nil {`,
		`req.Header.Set("Content-Type", "application/json")`,
		`req.Header.Set("Authorization", "Bearer "+token)`,
		`headers.set("Authorization", `+"`Bearer ${token}`"+`)`,
		`System.setProperty("javax.net.ssl.trustStore", "/etc/ssl/cacerts");`,
		`System.setProperty("X_TOKEN", System.getenv("X_TOKEN"));`,
		`props.put("password", cfg.getPassword());`,
		`define('AUTH_KEY', getenv('WP_AUTH_KEY'));`,
		`os.environ.setdefault("DJANGO_SETTINGS_MODULE", "app.settings")`,
		`const apiKey = process.env.API_KEY;`,
		`def get_token(self): return self._token`,
		`password = getpass.getpass("Password: ")`,
		`api_key = os.environ["OPENAI_API_KEY"]`,
		`client = OpenAI(api_key=settings.openai_api_key)`,
		`let secretName = "prod/db/credentials";`,
		`tokens = tokenizer.encode(text, max_length=512)`,
		`s.handleRequestWithContext(ctx, req)`,
		`return s.ServeHTTPWithMiddlewareStack1(w, r)`,
		`hf_hub_download(repo_id="bert-base-uncased", filename="config.json")`,
		`from sklearn.model_selection import train_test_split  # pip install scikit-learn`,
		`pat := regexp.MustCompile("^v[0-9]+$"); pat.MatchString(s)`,
		`patternMatchingEngineV2ForTokens := newEngine()`,
		`SK_LIST_HEAD(name) and SG.Name in the grid`,
		`df = dp.st.mean(); x = dp.pt.values`,
		`key-value store with key-prefix compaction`,
		`SELECT id, password_hash FROM users WHERE token_id = $1`,
		`CREATE TABLE tokens (token TEXT NOT NULL, expires_at TIMESTAMPTZ, secret_ref TEXT);`,
		`UPDATE users SET password = crypt($1, gen_salt('bf')) WHERE id = $2;`,
		`INSERT INTO api_keys (name, hash) VALUES ('ci', 'sha256:`+g.s(hexLo, 64)+`');`,
		// URLs
		"https://example.com/callback?token=${TOKEN}&state=xyz",
		"https://acct.blob.core.windows.net/container/file.txt",
		"https://acct.blob.core.windows.net/c/f?comp=list&restype=container",
		"https://api.example.com/v1/items?sig=abc&page=2",
		"https://discord.com/channels/123456789012345678/987654321098765432",
		"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
		"see https://docs.gitlab.com/ee/security/token_overview.html#gitlab-deploy-tokens",
		"https://t.me/joinchat/AAAAAE"+g.s(b62, 10),
		// configuration without secrets
		"secretKeyRef:\n  name: db-credentials\n  key: password",
		"env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: api\n        key: token",
		"- name: DB_PASSWORD\n  value: ${DB_PASSWORD}",
		"environment:\n  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set it}\n  POSTGRES_USER: app",
		"TOKEN_TYPE=bearer",
		"token_type: Bearer",
		"AUTH_MODE=oauth2",
		"SECRET_NAME=prod-db",
		"PASSWORD_MIN_LENGTH=12",
		"API_KEY=${API_KEY}",
		"API_KEY=$(cat /run/secrets/api_key)",
		"password: {{ .Values.db.password }}",
		"token: '%API_TOKEN%'",
		"GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
		"ENV NODE_ENV production",
		"ENV API_TOKEN_FILE /run/secrets/api_token",
		"ARG NPM_TOKEN",
		"setenv EDITOR vim",
		"TOKEN_FILE ?= $(HOME)/.config/app/token",
		"PASSWORD_STORE_DIR ?= ~/.password-store",
		"<password>${env.MAVEN_PASSWORD}</password>",
		"<tokenType>Bearer</tokenType>",
		"<add key=\"ApiKeyHeader\" value=\"X-Api-Key\" />",
		"<passwordEncoding>UTF-8</passwordEncoding>",
		"<secret>true</secret><token>{{TOKEN}}</token>",
		"<entry key=\"token.ttl\">3600</entry>",
		"<property name=\"password\" value=\"${db.password}\"/>",
		// .netrc and command lines that hold no password
		"machine api.heroku.com login me@corp.io password <your token>",
		"machine github.com login x-access-token password $GITHUB_TOKEN",
		"the build machine has a login prompt; the default login password policy applies",
		"a machine learning model; login with the default account",
		"curl -u $USER:$TOKEN https://api.example.com",
		"curl -u \"${USER}:${PASS}\" https://x",
		"curl -u admin https://jenkins/api  # prompts for the password",
		"curl -u apikey: https://api.service.io",
		"docker run -p 8080:80 -u 1000:1000 nginx",
		"docker login -u me --password-stdin ghcr.io < token.txt",
		"echo $CR_PAT | docker login ghcr.io -u me --password-stdin",
		"mysql -u root -p mydb",
		"mysql -u root -p",
		"mysql -uroot -p$MYSQL_ROOT_PASSWORD",
		"mysql -h db -P 3306 -u app -p app_db < dump.sql",
		"sshpass -f ~/.ssh/pw ssh host",
		"sshpass -e ssh host",
		"redis-cli -a \"$REDIS_PASSWORD\" ping",
		"openssl enc -aes-256-cbc -pass env:PASS -in a -out b",
		"openssl pkcs12 -export -passout file:pw.txt -in c.pem",
		"keytool -list -keystore ks.jks -storepass:env STOREPASS",
		"htpasswd -c /etc/nginx/.htpasswd admin",
		"tar -cf - . | ssh host 'cat > a.tar' -- the password is in 1Password",
		"gh auth login --with-token < token.txt",
		"vercel --token $VERCEL_TOKEN deploy",
		"./sync --api-key-file ~/.config/sync/key --dry-run",
		"terraform apply -var token=var.token",
		"kubectl create secret generic db --from-literal=password=$(openssl rand -hex 16)",
		// the prefixes of the formats above, in ordinary words
		"ya29 is the prefix of a Google access token; 1//0 starts a refresh token",
		"AGE-SECRET-KEY-1 is how an age identity starts",
		"PuTTY-User-Key-File-3: ssh-ed25519 is the first line of a .ppk",
		"GOCSPX- prefixes Google client secrets, glrt- GitLab runner tokens",
		"MTU is 1500; NTP server 10.0.0.1; OD 600 nm; NZ region",
		"1/2 of requests and 2/3 of retries; 1/2024/12 is not a date",
		"pypi-AgE is the PyPI token prefix",
		"the key-format is key-<32 hex>",
		"secret_santa_assignments_for_the_team_2024 = []",
		"shpat_ tokens are Shopify's; dop_v1_ DigitalOcean's",
		"AccountKey=<your account key>;EndpointSuffix=core.windows.net",
		"SharedAccessKey=${SB_KEY}",
		"the NRAK- key lives in 1Password; PMAK- for Postman",
		"hvs.CAES is how new Vault tokens start",
		"discord bot token: MTk4.Cl2FMQ.abc, see the developer portal",
		"sk.eyJ is Mapbox's secret token prefix",
		"Q~ appears in Azure client secrets",
		"EAAA is Square's production token prefix",
		"SSWS is Okta's authorization scheme: Authorization: SSWS ${OKTA_TOKEN}",
		"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t is a base64 certificate header",
		"xapp- tokens are Slack app-level tokens",
		"dckr_pat_ docker tokens, whsec_ webhook secrets, gsk_ Groq keys, r8_ Replicate",
	)
	return out
}

// TestCorpusLookalikes: none of the lookalikes is taken for a secret.
func TestCorpusLookalikes(t *testing.T) {
	cases := lookalikeCorpus()
	fp := 0
	for _, text := range cases {
		if fs := Scan(text); len(fs) > 0 {
			fp++
			t.Errorf("false positive %+v in %.160q", fs, text)
		}
	}
	t.Logf("false positives: %d of %d lookalikes", fp, len(cases))
	if len(cases) < 300 {
		t.Errorf("corpus has %d lookalikes, want 300 or more", len(cases))
	}
}

// Each new format and shape, one case each, with the rule it is reported
// under.
func TestScanFindsNewFormats(t *testing.T) {
	g := gen{rand.New(rand.NewSource(5))}
	cases := []struct{ text, rule string }{
		{"DefaultEndpointsProtocol=https;AccountName=a;Account" + "Key=" + g.b64(64) + ";EndpointSuffix=core.windows.net", "Azure account key"},
		{"https://a.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&se=2026-01-01&s" + "ig=" + url.QueryEscape(g.b64(32)), "Azure SAS signature"},
		{"AZ_SECRET " + g.s(b62, 3) + "8Q" + "~" + g.s(b62, 34), "Azure client secret"},
		{"gl" + "dt-" + g.s(b62, 20), ruleGitLab},
		{"gl" + "rt-" + g.s(b62, 20), ruleGitLab},
		{"GOC" + "SPX-" + g.s(b64url, 28), "Google OAuth client secret"},
		{`"refresh_token": "1//` + "0" + g.s(b64url, 100) + `"`, "Google OAuth token"},
		{"hf" + "_" + g.s(b62[:52], 34), "Hugging Face token"},
		{"gs" + "k_" + g.s(b62, 52), "Groq API key"},
		{"r8" + "_" + g.s(b62, 37), "Replicate token"},
		{"sk" + "_test_" + g.s(b62, 24), ruleStripe},
		{"wh" + "sec_" + g.s(b62, 32), "Stripe webhook secret"},
		{"xa" + "pp-1-A0" + g.s(upAlnm, 8) + "-" + g.s(digits, 13) + "-" + g.s(hexLo, 64), ruleSlack},
		{"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: x\nPublic-Lines: 1\n" + g.b64(40) + "\nPrivate-Lines: 1\n" + g.b64(40) + "\n", "PuTTY private key"},
		{"AGE-SECRET-" + "KEY-1" + g.s(bech32, 58), "age secret key"},
		{"client-key-data: " + base64.StdEncoding.EncodeToString([]byte(begin+"RSA PRIVATE KEY-----\n"+g.b64(96)+"\n")), "base64 private key"},
		{"machine api.example.org login me password " + g.s(b62, 12), ruleNetrc},
		{"curl -u me:" + g.s(b62, 12) + " https://api", ruleCLI},
		{"sshpass -p " + g.s(b62, 12) + " ssh host", ruleCLI},
		{"mysql -uroot -p" + g.s(b62, 12), ruleCLI},
		{"docker login -u me -p " + g.s(b62, 12) + " reg.io", ruleCLI},
		{"<password>" + g.s(b62, 16) + "</password>", rulePassword},
		{`<add key="ApiKey" value="` + g.s(b62, 24) + `"/>`, ruleKey},
		{"API_TOKEN ?= " + g.s(b62, 32), ruleToken},
		{`System.setProperty("X_TOKEN", "` + g.s(b62, 24) + `");`, ruleToken},
		{"ENV DB_PASSWORD " + g.s(b62, 16), ruleEnv},
		{"- name: API_SECRET\n  value: " + g.s(b62, 24), ruleSecret},
		{"py" + "pi-AgEIcHlwaS5vcmc" + g.s(b64url, 80), "PyPI token"},
		{"dckr" + "_pat_" + g.s(b64url, 27), "Docker Hub token"},
		{"S" + "G." + g.s(b64url, 22) + "." + g.s(b64url, 43), "SendGrid API key"},
		{"S" + "K" + g.s(hexLo, 32), "Twilio API key"},
		{"do" + "p_v1_" + g.s(hexLo, 64), "DigitalOcean token"},
		{"shp" + "at_" + g.s(hexLo, 32), "Shopify token"},
		{"hv" + "s.CAES" + g.s(b64url, 90), "Vault token"},
		{"X-Vault-Token: s" + "." + g.s(b62, 24), "Vault token"},
		{"da" + "pi" + g.s(hexLo, 32), "Databricks token"},
		{base64.RawStdEncoding.EncodeToString([]byte("1"+g.s(digits, 17))) + "." + g.s(b64url, 6) + "." + g.s(b64url, 38), "Discord bot token"},
		{"https://discord.com/api/web" + "hooks/" + g.s(digits, 19) + "/" + g.s(b64url, 68), "Discord webhook URL"},
		{"bot " + g.s("123456789", 1) + g.s(digits, 9) + ":A" + "A" + g.s(b64url, 33), "Telegram bot token"},
		{"ATA" + "TT3xFfGF0" + g.s(b64url, 170), "Atlassian API token"},
		{"lin" + "_api_" + g.s(b62, 40), "Linear API key"},
		{"sntr" + "yu_" + g.s(hexLo, 64), "Sentry token"},
		{"dp." + "pt." + g.s(b62, 43), "Doppler token"},
		{"pu" + "l-" + g.s(hexLo, 40), "Pulumi token"},
		{g.s(b62, 14) + ".atlas" + "v1." + g.s(b62, 67), "Terraform Cloud token"},
		{"ke" + "y-" + g.s(hexLo, 32), "Mailgun API key"},
		{g.s(hexLo, 32) + "-u" + "s14", "Mailchimp API key"},
		{"NR" + "AK-" + g.s(upAlnm, 27), "New Relic key"},
		{"PM" + "AK-" + g.s(hexLo, 24) + "-" + g.s(hexLo, 34), "Postman API key"},
		{"gl" + "sa_" + g.s(b62, 32) + "_" + g.s(hexLo, 8), "Grafana token"},
		{"HR" + "KU-AA" + g.s(b64url, 58), "Heroku API key"},
		{"Fly" + "V1 fm2_" + g.b64(120), "Fly.io token"},
		{"sb" + "p_" + g.s(hexLo, 40), "Supabase key"},
		{"vc" + "p_" + g.s(b62, 40), "Vercel token"},
		{"nf" + "p_" + g.s(b62, 36), "Netlify token"},
		{"Authorization: SS" + "WS 00" + g.s(b64url, 40), "Okta API token"},
		{"sq0" + "atp-" + g.s(b64url, 22), "Square token"},
		{"pa" + "t" + g.s(b62, 14) + "." + g.s(hexLo, 64), "Airtable token"},
		{"nt" + "n_" + g.s(b62, 46), "Notion token"},
		{"2" + "/" + g.s(digits, 16) + "/" + g.s(digits, 16) + ":" + g.s(hexLo, 32), "Asana token"},
		{"v1" + ".0-" + g.s(hexLo, 24) + "-" + g.s(hexLo, 146), "Cloudflare origin CA key"},
		{"sk" + ".eyJ1Ijoi" + g.s(b64url, 30) + "." + g.s(b64url, 22), "Mapbox secret token"},
		{"AAAA" + g.s(b64url, 7) + ":APA" + "91b" + g.s(b64url, 134), "Firebase server key"},
	}
	for _, c := range cases {
		fs := Scan(c.text)
		if len(fs) != 1 || fs[0].Rule != c.rule {
			t.Errorf("Scan(%.80q) = %+v, want one %q", c.text, fs, c.rule)
			continue
		}
		// The refusal names the rule, suggests somewhere other than the
		// default, and never repeats the text it refused.
		msg := Check(Field{"body", c.text}).Error()
		if !strings.Contains(msg, c.rule) || strings.ContainsAny(msg, "\r\n") {
			t.Errorf("message %q", msg)
		}
		if hint(c.rule) == hint("") && c.rule != ruleKey && c.rule != ruleSecret && c.rule != ruleEnv {
			t.Errorf("%s: no hint of its own", c.rule)
		}
	}
}

// No refusal of the corpus repeats any part of the secret it refused.
func TestCorpusMessagesNeverEchoTheSecret(t *testing.T) {
	g := gen{rand.New(rand.NewSource(11))}
	for _, p := range providers {
		v := p.tok(g)
		err := Check(Field{"body", p.env + "=" + v})
		if err == nil {
			t.Errorf("%s: not refused", p.name)
			continue
		}
		msg := err.Error()
		for i := 0; i+8 <= len(v); i++ {
			if strings.Contains(msg, v[i:i+8]) {
				t.Errorf("%s: message %q repeats %q", p.name, msg, v[i:i+8])
				break
			}
		}
	}
}
