#!/usr/bin/env bash
# Whole-command benchmarks on large generated ledgers: `daokit replay
# --limit 20`, `daokit status` (text and --json) and `daokit check` at
# 10k, 100k and 1M events (about 460 MB). Ledgers are generated once and cached under
# ${DAOKIT_BENCH_DIR:-/tmp}. Then start-up and cold start side by side in
# the same run: `daokit --help` and `status --json` on the 1M-event
# ledger, each timed alternately with a Go hello-world (the ratio of the
# medians is printed), `send` / `run` on fresh roots that start their own
# controller (bench/coldstart), and the Python DAOKit's `run` beside
# daokit's when DAOKIT_PY_SRC names a checkout of it. Figures go to
# stdout and bench/last-run.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/daokit
[ -x "$bin" ] || CGO_ENABLED=0 go build -o "$bin" ./cmd/daokit
CGO_ENABLED=0 go build -o bin/hello ./bench/hello
go build -o bin/coldstart ./bench/coldstart
go build -o bin/cmdbench ./bench/cmdbench
go build -o bin/genledger ./bench/genledger
cache=${DAOKIT_BENCH_DIR:-/tmp}
runs=${RUNS:-30}
{
	echo "daokit whole-command benchmarks ($(date -u +%FT%TZ), $(nproc) cores)"
	for n in 10000 100000 1000000; do
		root="$cache/daokit-cmdbench-$n"
		if [ ! -s "$root/state/events.jsonl" ]; then
			bin/genledger -root "$root" -events "$n" >/dev/null
		fi
		size=$(du -h "$root/state/events.jsonl" | cut -f1)
		echo "-- $n events ($size of events.jsonl)"
		bin/cmdbench -n "$runs" -label "replay --limit 20" -- "$bin" replay --root "$root" --limit 20
		bin/cmdbench -n "$runs" -label "status" -- "$bin" status --root "$root"
		bin/cmdbench -n "$runs" -label "status --json" -- "$bin" status --root "$root" --json
		bin/cmdbench -n "$runs" -label "check" -- "$bin" check --root "$root"
	done
	echo "-- start-up and cold start, side by side"
	# Each against a Go hello-world, run alternately with it (cmdbench -vs).
	bin/cmdbench -n "$runs" -vs bin/hello -vs-label "go hello-world" -label "daokit --help" -- "$bin" --help
	bin/cmdbench -n "$((runs * 3))" -vs bin/hello -vs-label "go hello-world" -label "status --json (1M events)" -- "$bin" status --root "$cache/daokit-cmdbench-1000000" --json
	bin/coldstart -daokit "$bin" -n 20 -mode send
	# With DAOKIT_PY_SRC set to a checkout of the Python DAOKit, its own
	# `run` is timed on fresh roots too, alternating with daokit's, and the
	# ratio of the medians printed.
	bin/coldstart -daokit "$bin" -n 10 -mode run ${DAOKIT_PY_SRC:+-python "$DAOKIT_PY_SRC"}
	# A bare interpreter start is the least any Python command costs,
	# shown for scale.
	if command -v python3 >/dev/null; then
		bin/cmdbench -n "$runs" -label "python3 -c pass (floor)" -- python3 -c pass
	fi
} | tee bench/last-run.txt
