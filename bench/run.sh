#!/usr/bin/env bash
# Whole-command benchmarks on large generated ledgers: `daokit replay
# --limit 20`, `daokit status --json` and `daokit check` at 10k, 100k and
# 1M events (about 460 MB). Ledgers are generated once and cached under
# ${DAOKIT_BENCH_DIR:-/tmp}. Figures go to stdout and bench/last-run.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/daokit
[ -x "$bin" ] || go build -o "$bin" ./cmd/daokit
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
		bin/cmdbench -n "$runs" -label "status --json" -- "$bin" status --root "$root" --json
		bin/cmdbench -n "$runs" -label "check" -- "$bin" check --root "$root"
	done
} | tee bench/last-run.txt
