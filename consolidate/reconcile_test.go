package consolidate

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"cairn/consolidate/claims"
	"cairn/memory"
)

// fact is a memory as reconciliation sees it: a text in a layer.
func stated(text string) *memory.Memory {
	return &memory.Memory{Project: "00000000000000c1", Layer: memory.LayerState, Kind: memory.KindFact, Body: text,
		Title: memory.DeriveTitle(text), Provenance: memory.ProvUserStated}
}

type contradictionCase struct {
	older, newer string
	old, new     string
	how          string
}

// The contradictions a user relies on cairn to notice.
var contradictions = []contradictionCase{
	{"p99 latency is 41 ms.", "p99 latency is 38 ms.", "41 ms", "38 ms", "number"},
	{"p99 latency is 41ms", "p99 latency is 2 s", "41ms", "2 s", "number"},
	{"The token bucket holds 5k rps.", "The token bucket holds 3000 rps.", "5k rps", "3000 rps", "number"},
	{"The build takes 3 minutes on CI.", "The build takes 7 minutes on CI.", "3 minutes", "7 minutes", "number"},
	{"We keep 3 replicas of the index.", "We keep 5 replicas of the index.", "3", "5", "number"},
	{"We are on Go 1.22.", "We are on Go 1.27.", "1.22", "1.27", "version"},
	{"We're on Go 1.22.", "we are on Go 1.27", "1.22", "1.27", "version"},
	{"Release v0.6.1 is out.", "Release v0.7.0 is out.", "v0.6.1", "v0.7.0", "version"},
	{"The service runs on Node 18.", "The service runs on Node 20.", "18", "20", "version"},
	{"The API listens on port 8080.", "The API listens on port 9090.", "8080", "9090", "port"},
	{"Postgres runs on localhost:5432.", "Postgres runs on localhost:5433.", "5432", "5433", "port"},
	{"The metrics endpoint is served on :9100.", "The metrics endpoint is served on :9200.", ":9100", ":9200", "port"},
	{"The config lives in config/app.yaml.", "The config lives in etc/app.toml.", "config/app.yaml", "etc/app.toml", "path"},
	{"Session handling is in src/auth.go.", "Session handling is in internal/session/store.go.", "src/auth.go", "internal/session/store.go", "path"},
	{"Deploys go through ArgoCD.", "Deploys go through Spinnaker, not ArgoCD.", "ArgoCD", "Spinnaker", "not"},
	{"Deploys go through ArgoCD.", "No, actually deploys go through Spinnaker, not ArgoCD.", "ArgoCD", "Spinnaker", "not"},
	{"Deploys go through ArgoCD.", "Deploys go through Spinnaker (not ArgoCD).", "ArgoCD", "Spinnaker", "not"},
	{"Deploys go through ArgoCD.", "Deploys go not through ArgoCD but through Spinnaker.", "ArgoCD", "Spinnaker", "not"},
	{"We deploy with ArgoCD.", "We deploy with Spinnaker instead of ArgoCD.", "ArgoCD", "Spinnaker", "not"},
	{"We deploy with ArgoCD.", "We deploy with Spinnaker rather than ArgoCD.", "ArgoCD", "Spinnaker", "not"},
	{"We use ArgoCD for deploys.", "We use Spinnaker for deploys, not ArgoCD.", "ArgoCD", "Spinnaker", "not"},
	{"The API listens on 9090.", "The API listens on 8080, not 9090.", "9090", "8080", "not"},
	{"We log warnings.", "We log errors, not warnings.", "warnings", "errors", "not"},
	{"Deploys are automated.", "Deploys are manual, not automated.", "automated", "manual", "not"},
	{"Set the request timeout to 30 s.", "Set the request timeout to 60 s.", "30 s", "60 s", "number"},
	{"The billing service is owned by Alice.", "The billing service is owned by Bob.", "Alice", "Bob", "value"},
	{"The CLI depends on cobra v1.8.0.", "The CLI depends on cobra v1.10.2.", "v1.8.0", "v1.10.2", "version"},
	{"The nightly job runs every 5 minutes.", "The nightly job runs every 10 minutes.", "5 minutes", "10 minutes", "number"},
	{"Issue 11 is blocked by 3 failing tests.", "Issue 11 is blocked by 1 failing tests.", "3", "1", "number"},
	{"We don't deploy on Fridays.", "We deploy on Fridays.", "not deploy on Fridays", "deploy on Fridays", "negation"},
	{"The feature flag is on in prod.", "The feature flag is off in prod.", "on in prod", "off in prod", "negation"},
	{"Backups go to S3.", "Backups go to GCS.", "S3", "GCS", "value"},
	{"The TUI is usable from 80x24 up.", "The TUI is usable from 100x30 up.", "80x24", "100x30", "value"},
	{"The cache is enabled in staging.", "The cache is enabled in prod, not in staging.", "staging", "prod", "not"},
	// The older one said "X, not Y"; the newer says Y after all.
	{"Deploys go through Spinnaker, not ArgoCD.", "Deploys go through ArgoCD.", "Spinnaker", "ArgoCD", "not"},
	{"Deploys go through ArgoCD.", "Deploys no longer go through ArgoCD.", "go through ArgoCD", "no longer go through ArgoCD", "negation"},
	{"The cache is enabled in prod.", "The cache is not enabled in prod.", "enabled in prod", "not enabled in prod", "negation"},
	{"The cache is enabled in prod.", "The cache isn't enabled in prod.", "enabled in prod", "not enabled in prod", "negation"},
	{"The cache is enabled in prod.", "The cache is disabled in prod.", "enabled in prod", "disabled in prod", "negation"},
	{"The cache is not enabled in prod.", "The cache is enabled in prod.", "not enabled in prod", "enabled in prod", "negation"},
	{"The integration tests pass on arm64.", "The integration tests fail on arm64.", "pass on arm64", "fail on arm64", "negation"},
	{"The team uses Postgres for sessions.", "The team uses Redis for sessions.", "Postgres", "Redis", "value"},
	{"CI runs on CircleCI for every push.", "CI runs on GitHub Actions for every push.", "CircleCI", "GitHub Actions", "value"},
	{"The build command is `make build`.", "The build command is `go build ./...`.", "`make build`", "`go build ./...`", "value"},
	{"The primary database is db1.internal:5432.", "The primary database is db2.internal:5432.", "db1.internal:5432", "db2.internal:5432", "value"},
	// A title a person chose, then a body: the claim is in the body.
	{"Deploy tool\nDeploys go through ArgoCD.", "Deploys go through Spinnaker, not ArgoCD.", "ArgoCD", "Spinnaker", "not"},
}

// The pairs that must NOT be read as contradictions: a false one
// supersedes a true memory without anyone asking.
var noContradictions = []struct{ why, older, newer string }{
	{"different subject (p99 / p50)", "p99 latency is 41 ms.", "p50 latency is 38 ms."},
	{"different subject (admin API)", "The API listens on port 8080.", "The admin API listens on port 9090."},
	{"different named subject", "The Billing service listens on port 8080.", "The Search service listens on port 9090."},
	{"different subject words", "We have 3 replicas.", "We have 5 shards."},
	{"elaboration", "Deploys go through ArgoCD.", "Deploys go through ArgoCD with a manual approval step for prod."},
	{"elaboration with a value", "The API listens on port 8080.", "The API listens on port 8080 behind nginx."},
	{"adds a value (also)", "The API listens on port 8080.", "The API also listens on port 9090."},
	{"adds a value (too)", "The team uses Postgres for sessions.", "The team uses Redis for sessions too."},
	{"adds a value (list)", "The API listens on port 8080.", "The API listens on ports 8080 and 9090."},
	{"a list that grew", "We support Postgres and MySQL.", "We support Postgres, MySQL and SQLite."},
	{"a list of ports that grew", "The API listens on ports 8080 and 9090.", "The API listens on ports 8080, 9090 and 9443."},
	{"a list of versions that changed", "CI tests Go 1.22 and 1.23.", "CI tests Go 1.23 and 1.24."},
	{"same time, other unit", "p99 latency is 41 ms.", "p99 latency is 0.041 s."},
	{"same size, other unit", "The cache holds 1 GB.", "The cache holds 1024 MB."},
	{"same version, other spelling", "We are on Go 1.22.", "We are on Go v1.22.0."},
	{"different dimensions", "The upload limit is 5 GB.", "The upload limit is 5 minutes."},
	{"a unit against none", "The timeout is 30.", "The timeout is 30 s."},
	{"approximate numbers", "Startup takes about 40 ms.", "Startup takes about 38 ms."},
	{"a bound, not a value", "The job retries at most 3 times.", "The job retries at most 5 times."},
	{"agreement with X, not Y", "Deploys go through ArgoCD.", "Deploys go through ArgoCD, not Spinnaker."},
	{"agreement, both say not", "Deploys go through Spinnaker, not ArgoCD.", "Deploys no longer go through ArgoCD."},
	{"both denied, other values", "The API does not listen on port 8080.", "The API does not listen on port 9090."},
	{"both no longer", "We no longer use ArgoCD.", "We no longer use Jenkins."},
	{"a hedge", "The API listens on port 8080.", "The API probably listens on port 9090."},
	{"a guess", "The API listens on port 8080.", "I think the API listens on port 9090."},
	{"a condition", "The API listens on port 8080.", "If TLS is on, the API listens on port 8443."},
	{"a question", "The API listens on port 8080.", "Does the API listen on port 9090?"},
	{"a vague subject", "It listens on port 8080.", "It listens on port 9090."},
	{"a vague negation", "It is enabled.", "It is not enabled."},
	{"prepositions differ", "We migrated from MySQL.", "We migrated to Postgres."},
	{"names as the sentence's first word", "Postgres stores sessions.", "Redis stores sessions."},
	{"a name qualifying a version", "We are on Go 1.22.", "We are on Rust 1.22."},
	{"lower-case words are not values", "The default branch is main.", "The default branch is master."},
	{"other verb", "The team uses Postgres for sessions.", "The team evaluated Redis for sessions."},
	{"too short a frame for a name", "Use Postgres.", "Use Redis."},
	{"a number with too little frame", "Retries: 3.", "Retries: 5."},
	{"past against present", "The API listened on port 8080.", "The API is on port 9090 now."},
	{"identical", "Deploys go through ArgoCD.", "Deploys go through ArgoCD."},
	{"same after normalising", "Deploys go through ArgoCD.", "deploys go through argocd"},
	{"Title Case is no evidence of names", "Deploy Tool Is ArgoCD", "Deploy Tool Is Spinnaker"},
	{"code is not a claim", "```\nport = 8080\n```", "```\nport = 9090\n```"},
	{"different values in different sentences", "The API listens on port 8080. The admin UI is on port 9000.", "The admin API listens on port 9090."},
	{"a date in a different frame", "v0.6.1 shipped on 2026-03-01.", "v0.6.1 was tagged on 2026-03-08."},
	{"numbers that name things", "Issue 11 asks for consolidation.", "Issue 12 asks for consolidation."},
	{"numbers that name steps", "Step 3 runs the migrations.", "Step 4 runs the migrations."},
	{"two instructions", "Run `make test` before pushing.", "Run `make lint` before pushing."},
	{"two instructions, always", "Always run `make test` before pushing.", "Always run `make lint` before pushing."},
	{"two instructions with names", "Use Postgres for the billing data.", "Use Redis for the billing data."},
	{"not just Y affirms Y", "We support MySQL.", "We support Postgres, not just MySQL."},
	{"not only", "We support MySQL.", "We support not only MySQL but also Postgres."},
	{"not always", "The nightly job succeeds.", "The nightly job does not always succeed."},
	{"usually", "The API answers in 40 ms.", "The API usually answers in 90 ms."},
	{"a clause after but", "The tests are slow.", "The tests are not fast but they pass."},
	{"different environments", "The API listens on port 8080 in dev.", "The API listens on port 443 in prod."},
	{"different places, same verb", "Staging uses Postgres 15.", "Prod uses Postgres 16."},
	{"an acronym as the subject", "The search API is stable.", "The search UI is stable."},
	{"two flags", "The feature flag NEW_RECALL is on in prod.", "The feature flag OLD_RECALL is on in prod."},
}

func TestContradictsFindsChangedValues(t *testing.T) {
	t.Parallel()
	for _, c := range contradictions {
		t.Run(c.newer, func(t *testing.T) {
			older, newer := stated(c.older), stated(c.newer)
			if strings.Contains(c.older, "\n") {
				title, body, _ := strings.Cut(c.older, "\n")
				older.Title, older.Body = title, body
			}
			got, ok := Contradicts(older, newer)
			if !ok {
				t.Fatalf("%q then %q: no contradiction found", c.older, c.newer)
			}
			if got.Old != c.old || got.New != c.new || got.How != c.how {
				t.Errorf("got %s %q → %q, want %s %q → %q (subject %q)", got.How, got.Old, got.New, c.how, c.old, c.new, got.Subject)
			}
			if strings.TrimSpace(got.Subject) == "" {
				t.Errorf("no subject in %+v", got)
			}
			// The bucketing contract: keys equal, or one's words hold the other's.
			ko, kn := claims.SubjectKey(claims.ClaimText(older)), claims.SubjectKey(claims.ClaimText(newer))
			if !claims.KeysMeet(ko, kn) {
				t.Errorf("subject keys %q and %q would never be paired", ko, kn)
			}
		})
	}
}

func TestContradictsLeavesCompatibleFactsAlone(t *testing.T) {
	t.Parallel()
	for _, c := range noContradictions {
		t.Run(c.why, func(t *testing.T) {
			for _, pair := range [][2]string{{c.older, c.newer}, {c.newer, c.older}} {
				if got, ok := Contradicts(stated(pair[0]), stated(pair[1])); ok {
					t.Errorf("%q then %q read as a contradiction: %+v", pair[0], pair[1], got)
				}
			}
		})
	}
}

func TestContradictsSubjects(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ older, newer, subject string }{
		{"p99 latency is 41 ms.", "p99 latency is 38 ms.", "p99 latency"},
		{"The API listens on port 8080.", "The API listens on port 9090.", "API listens on port"},
		{"We are on Go 1.22.", "We are on Go 1.27.", "Go version"},
		{"Deploys go through ArgoCD.", "Deploys go through Spinnaker, not ArgoCD.", "deploys go through"},
		{"The team uses Postgres for sessions.", "The team uses Redis for sessions.", "team uses … for sessions"},
		{"The cache is enabled in prod.", "The cache is disabled in prod.", "cache"},
		{"Deploys go through ArgoCD.", "Deploys no longer go through ArgoCD.", "deploys"},
		{"We deploy on Fridays.", "We don't deploy on Fridays.", "deploy on Fridays"},
	} {
		got, ok := Contradicts(stated(c.older), stated(c.newer))
		if !ok || got.Subject != c.subject {
			t.Errorf("%q → %q: subject %q (found %v), want %q", c.older, c.newer, got.Subject, ok, c.subject)
		}
	}
}

func TestContradictsRespectsScopeAndKind(t *testing.T) {
	t.Parallel()
	older, newer := stated("The API listens on port 8080."), stated("The API listens on port 9090.")
	if _, ok := Contradicts(older, newer); !ok {
		t.Fatal("the base pair is not a contradiction")
	}
	other := newer.Clone()
	other.Project = "00000000000000c2"
	if _, ok := Contradicts(older, other); ok {
		t.Error("facts of two projects contradict each other")
	}
	lesson := newer.Clone()
	lesson.Layer, lesson.Kind = memory.LayerMeta, memory.KindLesson
	if _, ok := Contradicts(older, lesson); ok {
		t.Error("a lesson contradicts a fact")
	}
	same := older.Clone()
	same.ID = "01J0000000000000000000000A"
	older.ID = same.ID
	if _, ok := Contradicts(older, same); ok {
		t.Error("a memory contradicts itself")
	}
	if _, ok := Contradicts(nil, newer); ok {
		t.Error("nil contradicts")
	}

	// Two dated events are both true, unless a measurement was taken again.
	event := func(text string) *memory.Memory {
		m := stated(text)
		m.Layer, m.Kind = memory.LayerEpisode, memory.KindEvent
		return m
	}
	if c, ok := Contradicts(event("Release v0.6.1 is out."), event("Release v0.7.0 is out.")); ok {
		t.Errorf("two release events contradict: %+v", c)
	}
	if c, ok := Contradicts(event("The team uses Postgres for sessions."), event("The team uses Redis for sessions.")); ok {
		t.Errorf("two events with names contradict: %+v", c)
	}
	c, ok := Contradicts(event("Load test: the token bucket holds 5000 rps."), event("Load test: the token bucket holds 3000 rps."))
	if !ok || c.How != "number" || c.Old != "5000 rps" || c.New != "3000 rps" {
		t.Errorf("a measurement taken again: %+v, %v", c, ok)
	}
}

// TestSubjectKeyBuckets: 10,000 facts about different subjects, written
// the ways facts are written, land in buckets small enough that pairing
// inside a bucket stays cheap.
func TestSubjectKeyBuckets(t *testing.T) {
	t.Parallel()
	facts := generatedFacts(10000, 1)
	buckets := map[string]int{}
	empty := 0
	for _, f := range facts {
		k := claims.SubjectKey(f)
		if k == "" {
			empty++
			continue
		}
		buckets[k]++
	}
	sizes := make([]int, 0, len(buckets))
	for _, n := range buckets {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	hist := map[string]int{}
	for _, n := range sizes {
		switch {
		case n == 1:
			hist["1"]++
		case n <= 5:
			hist["2-5"]++
		case n <= 20:
			hist["6-20"]++
		case n <= 50:
			hist["21-50"]++
		default:
			hist[">50"]++
		}
	}
	largest := sizes[len(sizes)-1]
	t.Logf("%d facts, %d buckets, %d without a key; sizes: median %d, p99 %d, max %d; histogram 1:%d 2-5:%d 6-20:%d 21-50:%d >50:%d",
		len(facts), len(buckets), empty, sizes[len(sizes)/2], sizes[len(sizes)*99/100], largest,
		hist["1"], hist["2-5"], hist["6-20"], hist["21-50"], hist[">50"])
	if largest > 50 {
		var big []string
		for k, n := range buckets {
			if n > 50 {
				big = append(big, fmt.Sprintf("%q:%d", k, n))
			}
		}
		t.Errorf("buckets over 50: %s", strings.Join(big, ", "))
	}
	if empty > len(facts)/100 {
		t.Errorf("%d of %d facts have no subject key", empty, len(facts))
	}
	// Facts about one subject with different values share a bucket.
	if claims.SubjectKey("The billing service listens on port 8080.") != claims.SubjectKey("The billing service listens on port 9090.") {
		t.Error("two ports of one service in different buckets")
	}
}

// generatedFacts writes n facts about different subjects: services,
// modules, environments and measures combined with verbs and values, in
// several sentence shapes.
func generatedFacts(n int, seed int64) []string {
	r := rand.New(rand.NewSource(seed))
	nouns := strings.Fields(`billing search auth gateway scheduler indexer mailer ledger payments invoices reports
		catalog inventory checkout profile session cache queue worker cron exporter importer notifier webhook
		uploader thumbnailer resolver router proxy balancer registry vault tracer logger metrics alerts backup
		migration fixtures docs website admin dashboard api cli sdk plugin daemon agent runner builder linter`)
	things := strings.Fields(`service module job pipeline cluster database bucket endpoint handler client server
		table index topic stream store container image`)
	envs := strings.Fields(`prod staging dev ci local canary preview`)
	measures := strings.Fields(`latency throughput timeout memory startup p99 p50 error-rate build-time cold-start`)
	names := strings.Fields(`Postgres Redis Kafka Spinnaker ArgoCD Jenkins Nginx Envoy Grafana Prometheus Vault
		Consul Terraform Helm SQLite MySQL RabbitMQ Memcached Elasticsearch`)
	verbs := strings.Fields(`listens runs lives writes reads stores sends pulls pushes logs caches retries`)
	unitNames := strings.Fields(`ms s MB GB rps %`)
	out := make([]string, 0, n)
	for len(out) < n {
		a, b := nouns[r.Intn(len(nouns))], things[r.Intn(len(things))]
		env := envs[r.Intn(len(envs))]
		switch r.Intn(8) {
		case 0:
			out = append(out, fmt.Sprintf("The %s %s listens on port %d in %s.", a, b, 1024+r.Intn(60000), env))
		case 1:
			out = append(out, fmt.Sprintf("%s %s is %d %s in %s.", a, measures[r.Intn(len(measures))], r.Intn(5000), unitNames[r.Intn(len(unitNames))], env))
		case 2:
			out = append(out, fmt.Sprintf("The %s %s uses %s for %s.", a, b, names[r.Intn(len(names))], nouns[r.Intn(len(nouns))]))
		case 3:
			out = append(out, fmt.Sprintf("The %s %s config lives in %s/%s.yaml.", a, b, env, nouns[r.Intn(len(nouns))]))
		case 4:
			out = append(out, fmt.Sprintf("The %s %s %s %s data.", a, b, verbs[r.Intn(len(verbs))], nouns[r.Intn(len(nouns))]))
		case 5:
			out = append(out, fmt.Sprintf("The %s %s is disabled in %s.", a, b, env))
		case 6:
			out = append(out, fmt.Sprintf("The %s %s depends on %s v%d.%d.%d.", a, b, nouns[r.Intn(len(nouns))], r.Intn(3), r.Intn(30), r.Intn(10)))
		case 7:
			out = append(out, fmt.Sprintf("%s %s go through %s, not %s.", strings.ToUpper(a[:1])+a[1:], b, names[r.Intn(len(names))], names[r.Intn(len(names))]))
		}
	}
	return out
}

// consistentFacts are true together: a project's memory, many facts
// sharing their words and shapes. No pair of them may read as a
// contradiction.
var consistentFacts = []string{
	"The API listens on port 8080.",
	"The admin UI listens on port 9000.",
	"The metrics exporter listens on port 9100.",
	"Postgres runs on localhost:5432.",
	"Redis runs on localhost:6379.",
	"The staging database is db-staging.internal:5432.",
	"The primary database is db1.internal:5432.",
	"Staging uses Postgres 15.",
	"Prod uses Postgres 16.",
	"We are on Go 1.27.",
	"The CLI depends on cobra v1.10.2.",
	"The workbench uses bubbletea v2.0.10.",
	"Release v0.6.1 is out.",
	"Release v0.7.0 is planned for April.",
	"CI runs on GitHub Actions.",
	"Nightly benchmarks run on a self-hosted runner.",
	"Tests for the store live in store/store_test.go.",
	"Crash tests live in store/crash_test.go.",
	"The config lives in config/app.yaml.",
	"Local overrides live in config/local.yaml.",
	"We use Postgres for billing data.",
	"We use Redis for rate limits.",
	"We use Kafka for the event stream.",
	"Run `make test` before pushing.",
	"Run `make lint` before pushing.",
	"Always run `go vet` on changed packages.",
	"Use table-driven tests for parsers.",
	"Use golden files for screens.",
	"Never commit .env files.",
	"Never commit generated protobuf code.",
	"The cache is enabled in prod.",
	"The cache is disabled in dev.",
	"The feature flag NEW_RECALL is on in staging.",
	"The feature flag NEW_RECALL is off in prod.",
	"p99 latency is 41 ms in prod.",
	"p50 latency is 12 ms in prod.",
	"p99 latency is 95 ms in staging.",
	"The build takes 3 minutes on CI.",
	"The build takes 40 seconds locally.",
	"The nightly job runs every 24 hours.",
	"The sync job runs every 5 minutes.",
	"The billing service is owned by Alice.",
	"The search service is owned by Bob.",
	"Deploys go through Spinnaker, not ArgoCD.",
	"Staging deploys go through ArgoCD.",
	"The integration tests fail on arm64.",
	"The unit tests pass on arm64.",
	"Issue 11 asks for consolidation.",
	"Issue 12 asks for session ingest.",
	"Step 1 builds the binary.",
	"Step 2 runs the migrations.",
	"The token bucket holds 5000 rps.",
	"The leaky bucket holds 3000 rps.",
	"We keep 3 replicas of the search index.",
	"We keep 2 replicas of the billing database.",
	"The upload limit is 5 GB.",
	"The request timeout is 30 s.",
	"The connect timeout is 5 s.",
	"The team prefers tabs in Go code.",
	"The team prefers spaces in YAML files.",
	"The README documents the install steps.",
	"The design doc lives in shared/DESIGN.md.",
	"The style guide lives in shared/STYLE.md.",
	"Alice reviews store changes.",
	"Bob reviews UI changes.",
	"The default branch is main.",
	"The release branch is release/0.7.",
	"Backups go to S3.",
	"Logs go to Loki.",
	"Metrics go to Prometheus.",
	"Traces go to Tempo.",
	"The auth module was rewritten in March.",
	"The auth refactor is half done.",
	"The session timeout is 30 minutes.",
	"The idle timeout is 5 minutes.",
	"The API returns JSON.",
	"The export command writes markdown.",
	"The import command reads JSON Lines.",
	"We support Postgres and MySQL.",
	"We support Linux and macOS.",
	"The mirror is written to .cairn/ in the repository.",
	"The store keeps one version of a key.",
	"The store keeps 16 accesses per memory.",
	"Recall returns at most 800 tokens by default.",
	"The salience weight is 0.3 by default.",
	"The serving threshold is 0.5.",
	"The wake check runs when a project is opened.",
	"The TUI is usable from 80x24 up.",
	"The MCP server speaks stdio.",
	"The sync command never deletes a file a person edited.",
	"Secrets are refused on every write path.",
	"The embedder is the built-in hashed n-gram one.",
	"The OpenAI embedder is optional.",
	"The daemon exits when its last client leaves.",
	"The socket has owner-only permissions.",
	"The lexical index uses BM25.",
	"The vector index uses kelindar/search v0.5.0.",
	"The frontier follows supersedes edges almost always.",
	"The frontier follows relates_to edges rarely.",
	"Alice fixed the session-timeout bug on 2026-03-07.",
	"Bob fixed the cache bug on 2026-03-09.",
	"The billing API is deprecated.",
	"The search API is stable.",
	"The search index is rebuilt nightly.",
	"The billing index is rebuilt hourly.",
	"The gateway retries failed requests 3 times.",
	"The mailer retries failed sends 5 times.",
	"Grafana runs on port 3000.",
	"Loki runs on port 3100.",
	"The staging cluster has 3 nodes.",
	"The prod cluster has 12 nodes.",
	"Deploys to prod need a manual approval.",
	"Deploys to staging are automatic.",
	"The ingest hook runs before compaction.",
	"The briefing hook runs at session start.",
	"We deploy with Helm, not kubectl apply.",
	"Terraform manages the DNS records.",
	"The CDN caches images for 7 days.",
	"The CDN caches HTML for 5 minutes.",
}

// factUpdates are an older fact and the newer one that replaces it, written
// the ways people write them.
var factUpdates = [][2]string{
	{"The API listens on port 8080.", "The API listens on port 9090."},
	{"Postgres runs on localhost:5432.", "Postgres runs on localhost:5433."},
	{"Prod uses Postgres 16.", "Prod uses Postgres 17."},
	{"We are on Go 1.27.", "We're on Go 1.28 now."},
	{"CI runs on GitHub Actions.", "CI runs on CircleCI."},
	{"The config lives in config/app.yaml.", "The config lives in etc/app.toml."},
	{"We use Redis for rate limits.", "We use Memcached for rate limits."},
	{"The cache is enabled in prod.", "The cache is disabled in prod."},
	{"The feature flag NEW_RECALL is off in prod.", "The feature flag NEW_RECALL is on in prod."},
	{"p99 latency is 41 ms in prod.", "p99 latency is 38 ms in prod."},
	{"The build takes 3 minutes on CI.", "The build takes 5 minutes on CI."},
	{"The billing service is owned by Alice.", "The billing service is owned by Carol."},
	{"Deploys go through ArgoCD.", "Deploys go through Spinnaker, not ArgoCD."},
	{"The integration tests fail on arm64.", "The integration tests pass on arm64."},
	{"We keep 3 replicas of the search index.", "We keep 5 replicas of the search index."},
	{"The request timeout is 30 s.", "The request timeout is 60 s."},
	{"Backups go to S3.", "Backups go to GCS."},
	{"Logs go to Loki.", "Logs go to Elasticsearch."},
	{"Grafana runs on port 3000.", "Grafana runs on port 3001."},
	{"The prod cluster has 12 nodes.", "The prod cluster has 16 nodes."},
	{"We deploy with Helm, not kubectl apply.", "We deploy with kubectl apply, not Helm."},
	{"The CDN caches images for 7 days.", "The CDN caches images for 30 days."},
	{"The session timeout is 30 minutes.", "The session timeout is 1 hour."},
	{"The default branch is main.", "The default branch is master."},
	{"The search API is stable.", "The search API is deprecated."},
	{"The vector index uses kelindar/search v0.5.0.", "The vector index uses kelindar/search v0.6.0."},
	{"Recall returns at most 800 tokens by default.", "Recall returns at most 1200 tokens by default."},
	{"The salience weight is 0.3 by default.", "The salience weight is 0.5 by default."},
	{"The serving threshold is 0.5.", "The serving threshold is 0.4."},
	{"The sync job runs every 5 minutes.", "The sync job now runs every 15 minutes."},
	{"The TUI is usable from 80x24 up.", "The TUI is usable from 100x30 up."},
	{"Release v0.6.1 is out.", "Release v0.7.0 is out."},
	{"The upload limit is 5 GB.", "The upload limit is 10 GB."},
	{"We use Kafka for the event stream.", "We use NATS for the event stream."},
	{"The gateway retries failed requests 3 times.", "The gateway retries failed requests 5 times."},
	{"The MCP server speaks stdio.", "The MCP server speaks HTTP."},
	{"Deploys to prod need a manual approval.", "Deploys to prod no longer need a manual approval."},
	{"The socket has owner-only permissions.", "The socket does not have owner-only permissions."},
	{"The embedder is the built-in hashed n-gram one.", "The embedder is the OpenAI one."},
	{"The staging cluster has 3 nodes.", "Actually, the staging cluster has 4 nodes."},
	{"Staging deploys go through ArgoCD.", "Staging deploys go through Spinnaker now."},
	{"Run `make test` before pushing.", "Run `make check` before pushing, not `make test`."},
}

// TestReconcilePrecisionAndRecall measures both on realistic facts: no
// false contradiction among facts that are true together (precision
// first), and most real updates found (recall, logged with what is missed).
func TestReconcilePrecisionAndRecall(t *testing.T) {
	t.Parallel()
	pairs, wrong := 0, 0
	for i, a := range consistentFacts {
		for j, b := range consistentFacts {
			if i == j {
				continue
			}
			pairs++
			if c, ok := Contradicts(stated(a), stated(b)); ok {
				wrong++
				t.Errorf("false contradiction: %q then %q: %+v", a, b, c)
			}
		}
	}
	found := 0
	for _, u := range factUpdates {
		if _, ok := Contradicts(stated(u[0]), stated(u[1])); ok {
			found++
		} else {
			t.Logf("missed: %q → %q", u[0], u[1])
		}
	}
	t.Logf("precision: %d false contradictions in %d ordered pairs of consistent facts; recall: %d of %d updates found (%.0f%%)",
		wrong, pairs, found, len(factUpdates), 100*float64(found)/float64(len(factUpdates)))
	if found*100 < len(factUpdates)*80 {
		t.Errorf("recall fell to %d of %d", found, len(factUpdates))
	}
}

// FuzzSubjectKey: any text gives a sorted set of words or nothing, never
// a panic, and a text never contradicts itself.
func FuzzSubjectKey(f *testing.F) {
	for _, c := range contradictions {
		f.Add(c.older, c.newer)
	}
	for _, c := range noContradictions {
		f.Add(c.older, c.newer)
	}
	f.Add("`unclosed \"quote “ and 1,000,000 ms, not", "no longer not never n't ’s")
	f.Add("”", "?+") // a stray closing quote once stopped the reader from moving on
	f.Add("X, not", "not Y but")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		k := claims.SubjectKey(a)
		ws := strings.Fields(k)
		if strings.Join(ws, " ") != k || !slices.IsSorted(ws) || len(slices.Compact(slices.Clone(ws))) != len(ws) {
			t.Fatalf("claims.SubjectKey(%q) = %q: not a sorted set of words", a, k)
		}
		if _, ok := Contradicts(stated(a), stated(a)); ok {
			t.Fatalf("%q contradicts itself", a)
		}
		if c, ok := Contradicts(stated(a), stated(b)); ok {
			if !claims.KeysMeet(claims.SubjectKey(claims.ClaimText(stated(a))), claims.SubjectKey(claims.ClaimText(stated(b)))) {
				t.Fatalf("%q / %q contradict (%+v) but their keys never meet", a, b, c)
			}
			if c.How == "" {
				t.Fatalf("a conflict without a how: %+v", c)
			}
		}
	})
}

func BenchmarkSubjectKey(b *testing.B) {
	facts := generatedFacts(1000, 2)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		claims.SubjectKey(facts[i%len(facts)])
	}
}

// BenchmarkContradicts: the same pair again (both texts already read, as
// when a memory is compared with its peers).
func BenchmarkContradicts(b *testing.B) {
	older, newer := stated("Deploys go through ArgoCD for the billing service."), stated("Deploys go through Spinnaker for the billing service, not ArgoCD.")
	b.ReportAllocs()
	for b.Loop() {
		Contradicts(older, newer)
	}
}

// BenchmarkContradictsCold: pairs never seen before (both texts read).
func BenchmarkContradictsCold(b *testing.B) {
	facts := generatedFacts(3*claims.MaxReadings, 3)
	ms := make([]*memory.Memory, len(facts))
	for i, f := range facts {
		ms[i] = stated(f)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		j := (2 * i) % (len(ms) - 1)
		Contradicts(ms[j], ms[j+1])
	}
}
