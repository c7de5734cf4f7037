#!/usr/bin/env bash
# Whole-command benchmarks: builds a large ledger once and times the real
# binary on it. Figures go to stdout (and bench/last-run.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "bench/run.sh: no whole-command benchmarks yet"
