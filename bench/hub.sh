#!/usr/bin/env bash
# What the hub (issue 31) costs those who do not run it, measured in one
# run: the daokit binary with the hub and without it (-tags nohub, the
# build for agent hosts and windows), and `daokit --help` of the two
# timed alternately (cmdbench -vs), with the ratio of the medians; then
# the package initialisation each build does before main at --help
# (GODEBUG=inittrace=1), the hub's dependencies apart. Budgets: at most
# 25 MB more binary, at most 2x the start-up. Figures go to stdout and
# bench/last-hub.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
CGO_ENABLED=0 go build -o bin/daokit ./cmd/daokit
CGO_ENABLED=0 go build -tags nohub -o bin/daokit-nohub ./cmd/daokit
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
	with=$(stat -c %s bin/daokit)
	without=$(stat -c %s bin/daokit-nohub)
	awk -v w="$with" -v wo="$without" 'BEGIN {
		printf "binary: with the hub %.1f MB, without (-tags nohub) %.1f MB: the hub adds %.1f MB (budget 25 MB), %.2fx\n", w / 1e6, wo / 1e6, (w - wo) / 1e6, w / wo
	}'
	bin/cmdbench -n "$runs" -vs "bin/daokit-nohub --help" -vs-label "--help without the hub" -label "--help with the hub" -- bin/daokit --help
	echo "init at --help, with the hub:    $(inits bin/daokit)"
	echo "init at --help, without the hub: $(inits bin/daokit-nohub)"
} | tee bench/last-hub.txt
