#!/usr/bin/env bash
# The example team, with simulated Workers and no key: a controller starts a
# Lead per role of examples/team/workflow.toml; three issues are filed; the
# qa one is blocked by the backend one, unblocked when it closes, and closed
# with evidence. Usage:
#
#   examples/team/run.sh [ROOT]      (DAOKIT=path/to/daokit to pick the binary)
#
# It prints each step and exits non-zero if the team did not get there.
set -euo pipefail
daokit=${DAOKIT:-daokit}
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(mktemp -d)}
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

step "1. A ledger whose team is examples/team/workflow.toml"
"$daokit" init --root "$root" >/dev/null
mkdir -p "$root/team"
cp "$here/workflow.toml" "$root/team/workflow.toml"
cat >"$root/daokit.toml" <<TOML
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "500ms"
warning_after = "5s"
stale_after = "10s"

[team]
outbox_root = "team"

[team.role_max_concurrent]
backend = 2
frontend = 2
qa = 1
integrator = 1
TOML
# The outbox database is made once, explicitly: daokit never makes a new,
# empty one over a lost or damaged outbox.
"$daokit" outbox init --root "$root"
echo "root: $root"

step "2. Start the controller: it starts one Lead per role"
"$daokit" controller --root "$root" >"$root/controller.out" 2>&1 &
controller=$!
trap 'kill "$controller" 2>/dev/null || true; wait "$controller" 2>/dev/null || true' EXIT

step "3. File three issues"
"$daokit" outbox new --root "$root" --to backend --body "POST /login returns a session token.
Sim: sleep 3s" "Login API"
"$daokit" outbox new --root "$root" --to frontend --body "A form that calls POST /login." "Login form"
"$daokit" outbox new --root "$root" --to qa --body "End-to-end test of the login." "Test login"

step "4. qa's issue is blocked by the open backend issue"
wait_for 3 "state:blocked"
"$daokit" outbox show --root "$root" 3

step "5. Backend closes #1 with evidence; qa's Lead wakes and unblocks #3"
wait_for 1 "IssueRef: #1"
wait_for 3 "Unblocked"

step "6. #3 is closed with its Worker's evidence"
wait_for 3 "IssueRef: #3"
"$daokit" outbox show --root "$root" 3
"$daokit" outbox list --root "$root" --state all

step "7. The roles"
"$daokit" status --root "$root" | sed -n '/Roles:/,$p'
