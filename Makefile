# cairn — the two commands a newcomer needs are `make run` and `make test`.
# The machine image pins GOTOOLCHAIN=local in go.env; go.mod asks for Go
# 1.27.1, which GOTOOLCHAIN=auto fetches through the module proxy once.
export GOTOOLCHAIN := auto
export GOFLAGS := -buildvcs=false

# staticcheck and gotestsum, pinned; `go run` builds each once with the
# project's toolchain. gotestsum prints one line per package and, at the end,
# every skipped test with its reason (a skip never passes unseen).
STATICCHECK := v0.8.2
GOTESTSUM := v1.13.0

.PHONY: run test race check lint deps bench bench-cli build

# What `cairn --version` says: the release (git describe; empty without a
# tag, then "devel") and the commit. GOFLAGS above keeps Go from stamping
# the commit itself, so the build passes what git says; outside a git
# checkout all three are empty and cairn says no commit was recorded.
RELEASE = $(shell git describe --tags --dirty 2>/dev/null)
COMMIT = $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED = $(shell git status --porcelain 2>/dev/null | grep -q . && echo true)
LDFLAGS = -X cairn/cli.release=$(RELEASE) -X cairn/cli.commit=$(COMMIT) -X cairn/cli.modified=$(MODIFIED)

# Open the workbench on the default store ($CAIRN_HOME, else $XDG_DATA_HOME/cairn).
run:
	go run -ldflags '$(LDFLAGS)' . $(ARGS)

# A ./cairn binary (BIN=PATH puts it elsewhere).
BIN := cairn
build:
	go build -ldflags '$(LDFLAGS)' -o $(BIN) .

# The whole suite: formatting, vet, a macOS cross-build, staticcheck, and
# every test with the race detector but UNRACED, which run without it
# after. CI runs this. The checks run beside the race pass, which leaves a
# fifth of the two cores idle (its tests wait on processes, timers and
# disks): on a fresh machine, as CI runs it, the suite took 6 min 2 s with
# them first and 5 min 35 s beside it.
test: deps
	@$(MAKE) --no-print-directory -j2 lint race
	@tests=$$(go test -list '^($(UNRACED))$$' $(UNRACED_PKGS)) || exit 1; for t in $(subst |, ,$(UNRACED)); do echo "$$tests" | grep -qx "$$t" || { echo "UNRACED names $$t, which is no test of $(UNRACED_PKGS): rename it there too"; exit 1; }; done
	go run gotest.tools/gotestsum@$(GOTESTSUM) --format pkgname-and-test-fails -- -count=1 -timeout 20m -run '^($(UNRACED))$$' $(UNRACED_PKGS)

# Every test with the race detector but UNRACED.
race:
	go run gotest.tools/gotestsum@$(GOTESTSUM) --format pkgname-and-test-fails -- -race -count=1 -timeout 20m -skip '^($(UNRACED))$$' $(LONGEST) ./...

# The packages whose tests take longest, named first so that go test
# builds and starts them first (it runs two packages at a time here): the
# store package started last of all took the suite a minute past the rest.
LONGEST := ./store/ ./cli/ ./ui/ ./consolidate/ ./e2e/

# Tests that `make test` runs without the race detector, and their
# packages: the first two read a large input in one goroutine, so the
# detector has nothing to find in them, and under it each took most of a
# minute of the suite's two cores; the update sets run their hundreds of
# pairs through the pass to measure what is read, which the pass's own
# tests exercise under the detector (20 s of it); the counts' property
# tests compare random sequences of writes, each store in one goroutine,
# with a count key by key (35 s of it), while the store's concurrency
# tests run under the detector. The paraphrase set is measured through the
# pass as the update sets are (15 s of it); the extraction's corpus and
# invariant tests call Extract on every corpus text in the test's one
# goroutine (25 s of it), while TestExtractIsDeterministic calls it from
# two goroutines at once under the detector. The SciFact evaluations ask
# their hundreds of questions one after another (30 s each under the
# detector, 4 s without), and so does LoCoMo's (23 s under it, 2 s
# without); an index of 300 memories is built on both cores under it
# (TestSavedIndexStartsWithoutABuild). The two tests that a forgotten text
# and a dropped draft leave no bytes in the store's files write, compact
# and read the files in one goroutine (13 s and 6 s under the detector, 2 s
# and 1 s without); so do the two that a forgotten episode takes its diary
# and a forget after a run leaves no bytes (16 s and 7 s under it, 2 s and
# 1 s without). The tests that kill a child process at random moments (of
# forgets, of a backfill) check what the next Open finds, in one goroutine;
# the detector cannot see across processes (53 s and 10 s under it; forget
# beside writers is TestForgetNeverFailsWriters, under it). The CLI's
# refused import of 9,000 lines and its inbox over 10,200 drafts write and
# read a big store through one command at a time (40 s and 19 s under the
# detector, 2-4 s without), and the store's import of 48 memories of the
# largest size checks that each batch fits a transaction (18 s under it,
# 2 s without); the import's planner and writer goroutines run under the
# detector in the store's other import tests. The check that the update
# fits' replay chooses what Find chooses reads the dev set's 219 texts
# against their candidates in one goroutine (22 s under the detector, 2 s
# without). (`go test -race` by hand still runs them all, slowly.)
UNRACED := TestPathologicalFilesAreRead|TestHugeTranscriptInBoundedMemory|TestUpdatesSet|TestUpdatesSetTogether|TestParaphraseSet|TestExtractCorpus|TestExtractInvariants|TestCountsKeptEqualAScan|TestCountsBuiltForAnOlderStore|TestEvalSciFact|TestEvalNothingKnown|TestForgetRemovesEverythingAndTheBytes|TestDropDraftLeavesOnlyThatADraftWasDeleted|TestForgettingTheEpisodeTakesTheDiary|TestForgetAfterRunLeavesNoBytes|TestReopenAfterKilledForget|TestKilledBackfillFinishesAtOpen|TestStreamedImportRefusesALateBadLineAndChangesNothing|TestInboxAfterTenThousandConsolidatedDrafts|TestEvalLoCoMo|TestImportOfTheLargestMemoriesFitsTransactions|TestChooseIsFindsChoice
# Their packages, the store's first: its killed children take the pass longest.
UNRACED_PKGS := ./store/ ./consolidate/ ./recall/ ./derive/ ./ingest/ ./cli/ ./consolidate/update/

# The edit loop: the same checks and every test, without the race detector
# (several times faster); run `make test` before you push.
check: deps lint
	go run gotest.tools/gotestsum@$(GOTESTSUM) --format pkgname-and-test-fails -- -count=1 -timeout 20m ./...

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...
	GOOS=darwin GOARCH=arm64 go build -o /dev/null .
	go run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...

# Tools the tests use that a fresh machine may lack: tmux for the terminal
# test; the real Claude Code and Codex clients (pinned, from npm, once into
# .cache/clients, which git ignores) for the tests that drive them against a
# loopback model server. What cannot be installed is said, and its tests
# skip (under CI=true they fail).
CLAUDE_CODE := 2.1.332
CODEX := 0.171.0
CLIENTS := .cache/clients
CLIENTS_STAMP := $(CLIENTS)/installed-claude-code-$(CLAUDE_CODE)-codex-$(CODEX)

deps:
	@command -v tmux >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing tmux for the terminal test"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux) >/dev/null 2>&1 || echo "could not install tmux: the terminal test will be skipped"; \
	  else echo "tmux missing and cannot be installed here: the terminal test will be skipped"; fi; }
	@if [ -f $(CLIENTS_STAMP) ] && [ -x $(CLIENTS)/node_modules/.bin/claude ] && [ -x $(CLIENTS)/node_modules/.bin/codex ]; then :; \
	elif ! command -v npm >/dev/null 2>&1; then echo "npm missing: the real Claude Code and Codex tests will be skipped"; \
	else echo "installing Claude Code $(CLAUDE_CODE) and Codex $(CODEX) into $(CLIENTS) for the real-client tests"; \
	  rm -f $(CLIENTS)/installed-*; mkdir -p $(CLIENTS); \
	  if npm install --prefix $(CLIENTS) --save-exact --no-audit --no-fund --loglevel=error \
	      @anthropic-ai/claude-code@$(CLAUDE_CODE) @openai/codex@$(CODEX) >$(CLIENTS)/npm.log 2>&1; \
	  then touch $(CLIENTS_STAMP); \
	  else echo "could not install them (see $(CLIENTS)/npm.log): the real-client tests will be skipped"; fi; fi

# Benchmarks whose figures docs/speed.md reports.
# cairn as a person meets it, whole processes, beside SQLite FTS5 on the
# same rows and queries: prints the first table of docs/speed.md. 100,000 memories;
# `make bench-cli ARGS="-n 1000000"` for a million.
bench-cli:
	go run ./bench/cli $(ARGS)

bench:
	go test -run '^$$' -bench . -benchtime 3x ./store/
