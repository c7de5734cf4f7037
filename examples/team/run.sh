#!/usr/bin/env bash
# The example team, with simulated Workers and no key, as a script (CI runs
# it; `make team` opens the window instead, see window.sh): a controller
# starts a Lead per role of examples/team/workflow.toml; three issues are
# filed (setup.sh); the qa one is blocked by the backend one, unblocked when
# it closes, and closed with evidence. Usage:
#
#   examples/team/run.sh [ROOT]      (DAOKIT=path/to/daokit to pick the binary)
#
# It prints each step and exits non-zero if the team did not get there.
set -euo pipefail
daokit=${DAOKIT:-daokit}
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-}
if [ -z "$root" ]; then
	# A folder of its own, removed at the end (a ROOT given is kept).
	root=$(mktemp -d)
	made=$root
fi
step() { printf '\n== %s\n' "$*"; }

# wait_for ISSUE PATTERN: until `outbox show ISSUE` prints PATTERN (30 s).
wait_for() {
	for _ in $(seq 1 300); do
		if "$daokit" outbox show --root "$root" "$1" | grep -q -- "$2"; then return 0; fi
		sleep 0.1
	done
	echo "issue #$1 never showed '$2'" >&2
	"$daokit" outbox show --root "$root" "$1" >&2
	exit 1
}

step "1. A ledger whose team is examples/team/workflow.toml, and three issues"
DAOKIT=$daokit "$here/setup.sh" "$root"
echo "root: $root"

step "2. Start the controller: it starts one Lead per role"
"$daokit" controller --root "$root" >"$root/controller.out" 2>&1 &
controller=$!
trap 'kill "$controller" 2>/dev/null || true; wait "$controller" 2>/dev/null || true; [ -z "${made:-}" ] || rm -rf "$made" || true' EXIT

step "3. qa's issue is blocked by the open backend issue"
wait_for 3 "state:blocked"
"$daokit" outbox show --root "$root" 3

step "4. Backend closes #1 with evidence; qa's Lead wakes and unblocks #3"
wait_for 1 "IssueRef: #1"
wait_for 3 "Unblocked"

step "5. #3 is closed with its Worker's evidence"
wait_for 3 "IssueRef: #3"
"$daokit" outbox show --root "$root" 3
"$daokit" outbox list --root "$root" --state all

step "6. The roles"
"$daokit" status --root "$root" | sed -n '/Roles:/,$p'
