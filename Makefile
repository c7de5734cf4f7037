# daokit — the two commands that matter: `make run` and `make test`.

GO        ?= go
BIN       := bin/daokit
DEMO_ROOT ?= $(CURDIR)/.demo
# staticcheck 2025.1.1 is module version v0.6.1 (the proxy serves only the
# semantic version).
STATICCHECK_VERSION ?= v0.6.1
# deadcode reports functions no daokit program reaches (only tests would).
DEADCODE_VERSION ?= v0.52.0

.PHONY: all build run review team team-script test test-short test-agents agents bench lint fmt vet drill drill-cluster fuzz clean

all: build

# Without cgo: nothing needs it (SQLite is pure Go), and a static binary
# starts faster (no dynamic loader) and runs anywhere. Two programs:
# daokit, and beside it daokit-hub, the only one that links the NATS
# server (`daokit hub` runs it), so that the window, the controller and
# every Lead and Worker carry none of the server's inits. Built as
# releases are: without the symbol table and DWARF (-s -w: a panic's
# stack still names every function and line, profiles still resolve,
# a debugger does not) and without this machine's paths (-trimpath);
# `make build LDFLAGS=` keeps them for a debugger.
LDFLAGS ?= -s -w
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='$(LDFLAGS)' -o bin/ ./cmd/daokit ./cmd/daokit-hub

# Open daokit on a demo root with a team of simulated agents: a coder and
# a reviewer in a loop (examples/demo/daokit.toml; an existing
# daokit.toml in the demo root is kept).
run: build
	@$(BIN) init --root $(DEMO_ROOT) >/dev/null
	@test -f $(DEMO_ROOT)/daokit.toml || cp examples/demo/daokit.toml $(DEMO_ROOT)/daokit.toml
	$(BIN) --root $(DEMO_ROOT)

# The review demo (examples/review): the simulated agent changes a real
# git project in a worktree of its own; F3 shows the diff, /accept merges
# it into the project's main branch.
REVIEW_ROOT ?= $(CURDIR)/.demo-review
review: build
	@$(BIN) init --root $(REVIEW_ROOT) >/dev/null
	@test -f $(REVIEW_ROOT)/daokit.toml || cp examples/review/daokit.toml $(REVIEW_ROOT)/daokit.toml
	@test -d $(REVIEW_ROOT)/project/.git || examples/review/init-project.sh $(REVIEW_ROOT)/project
	$(BIN) --root $(REVIEW_ROOT)

# The example team (examples/team) in the window: a Lead per role, three
# issues, qa's blocked by backend's for 30 s and then unblocked by event,
# all closed with evidence; no key. F6 shows the issues (an existing
# team root is kept: delete it to start over).
TEAM_ROOT ?= $(CURDIR)/.demo-team
team: build
	DAOKIT=$(CURDIR)/$(BIN) examples/team/window.sh $(TEAM_ROOT)

# The same example as a script that checks each step and exits non-zero
# if the team did not get there (CI runs it; e2e TestTeamExampleScript).
team-script: build
	DAOKIT=$(CURDIR)/$(BIN) examples/team/run.sh

# Every test, with the race detector, in a shuffled order; then the window
# and CLI tests again under a Chinese locale, where width libraries that
# read LANG behave differently (see TUI-NOTES).
test: vet
	$(GO) test -race -shuffle=on -timeout=15m ./...
	LANG=zh_CN.UTF-8 LC_ALL=zh_CN.UTF-8 $(GO) test -count=1 ./tui/... ./cmd/daokit/

# The real-agent tests alone (TestReal*: the pinned Claude Code and Codex
# CLIs against the scripted model, offline); `make test` runs them too,
# and skips them when the CLIs are not installed (fails under CI=true).
test-agents: agents
	$(GO) test -race -count=1 -run '^TestReal' -v ./e2e/

# Install the pinned agent CLIs into e2e/agents/node_modules (npm ci;
# nothing to do when they are already those of the lock file).
agents:
	e2e/agents/install.sh

# The quick loop while editing: no race detector, short drills.
test-short:
	$(GO) test -short ./...

# Benchmarks behind the issues' speed and memory goals: one pass over every
# benchmark, then the compaction budget properly (five runs, on one core and
# on two); then what the hub costs (bench/hub.sh: daokit's and
# daokit-hub's sizes and --help start-up side by side). First, one line: the back-arrows
# between controller/'s files (bench/filearrows; issue 28: at most 15 %).
bench: build
	$(GO) run ./bench/filearrows ./controller
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=1x -count=1 ./... | tee bench/last-go-bench.txt
	$(GO) test -run='^$$' -bench='^BenchmarkCompact' -benchmem -count=5 -cpu=1,2 ./compact/ | tee bench/last-compact-bench.txt
	./bench/run.sh
	./bench/hub.sh

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	@out=$$($(GO) run golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION) ./cmd/...); if [ -n "$$out" ]; then echo "reached by no program:"; echo "$$out"; exit 1; fi

# The self-healing drills in full: 100 rounds of SIGKILL (worker, controller,
# both), 100 split-brain starts, the hang drill and the paused controller;
# then 1,000 outbox triggers through role Leads SIGKILLed 100 times.
drill:
	DAOKIT_DRILL=full $(GO) test -count=1 -timeout=60m -v -run 'Drill|Paused' ./e2e/ | grep -v '^    .*│'
	DAOKIT_DRILL=full $(GO) test -count=1 -timeout=20m -v -run 'Drill' ./lead/

# The cluster drill in full (issue 31; root, for the network namespaces):
# 300 instructions through the hub while it is SIGKILLed 100 times, an
# agent host is cut off mid-step and the leader is paused past its lease.
drill-cluster:
	DAOKIT_DRILL=full $(GO) test -count=1 -timeout=60m -v -run '^TestClusterDrill$$' ./e2e/

# Fuzz each parser for a short while (FUZZTIME=1m for longer runs).
FUZZTIME ?= 10s
fuzz:
	@for pkg in ./ledger ./relay ./compact ./config ./gitwork ./outbox ./team ./workflow ./internal/fakemodel; do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			$(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf bin $(DEMO_ROOT)
