#!/usr/bin/env bash
# What the hub (issue 31) costs, measured in one run: daokit, which never
# links the NATS server, and daokit-hub, the only program that does
# (`daokit hub` execs it), side by side: their sizes, `--help` of the two
# timed alternately (cmdbench -vs) with the ratio of the medians, and
# the package initialisation each does before main at --help
# (GODEBUG=inittrace=1), the hub's dependencies apart. Budgets: the hub
# adds at most 25 MB (daokit-hub beside daokit), and daokit starts at
# most 2x slower for it (it now starts no faster or slower than without
# a hub: the server is not in it). Figures go to stdout and
# bench/last-hub.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
# The two programs as `make build` builds them (what a person installs).
make --no-print-directory build
go build -o bin/cmdbench ./bench/cmdbench
runs=${RUNS:-50}
# The modules the hub brings in (go.mod), as package path prefixes.
hubdeps='^(github.com/nats-io/|github.com/klauspost/compress|github.com/minio/highwayhash|github.com/google/go-tpm|github.com/antithesishq/|golang.org/x/crypto|golang.org/x/time)'
# inits BIN: the package inits `BIN --help` runs before main, over 11
# runs (the median run by clock): all of them, then the hub's
# dependencies alone, each as a count, clock ms and bytes allocated.
inits() {
	for _ in $(seq 11); do
		GODEBUG=inittrace=1 "$1" --help 2>&1 >/dev/null |
			awk -v pat="$hubdeps" '$1 == "init" { ms += $5; b += $8; n++ } $1 == "init" && $2 ~ pat { hms += $5; hb += $8; hn++ }
				END { printf "%09.3f all: %d packages, %.2f ms clock, %.0f kB allocated; the hub'"'"'s dependencies: %d packages, %.2f ms clock, %.0f kB allocated\n", ms, n, ms, b / 1000, hn, hms, hb / 1000 }'
	done | sort | sed -n 6p | cut -d' ' -f2-
}
{
	echo "daokit hub cost ($(date -u +%FT%TZ), $(nproc) cores)"
	daokit=$(stat -c %s bin/daokit)
	hub=$(stat -c %s bin/daokit-hub)
	awk -v d="$daokit" -v h="$hub" 'BEGIN {
		printf "binaries: daokit %.1f MB (no server), daokit-hub %.1f MB: the hub adds %.1f MB beside daokit (budget 25 MB) and nothing to daokit\n", d / 1e6, h / 1e6, h / 1e6
	}'
	echo "server packages linked into daokit: $(go list -deps ./cmd/daokit | grep -c '^github.com/nats-io/nats-server/' || true)"
	bin/cmdbench -n "$runs" -vs "bin/daokit --help" -vs-label "daokit --help" -label "daokit-hub --help" -- bin/daokit-hub --help
	echo "init at --help, daokit-hub: $(inits bin/daokit-hub)"
	echo "init at --help, daokit:     $(inits bin/daokit)"
} | tee bench/last-hub.txt
