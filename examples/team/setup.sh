#!/usr/bin/env bash
# Makes ROOT a daokit root whose team is examples/team/workflow.toml, with
# its outbox database, and files the example's three issues. Used by
# run.sh (the scripted example, for CI) and window.sh (`make team`).
#
#   examples/team/setup.sh ROOT [BACKEND_SECONDS]
#
# BACKEND_SECONDS is how long the backend Worker works on #1 (default 3):
# qa's #3 is blocked by #1 that long.
set -euo pipefail
daokit=${DAOKIT:-daokit}
here=$(cd "$(dirname "$0")" && pwd)
root=$1
seconds=${2:-3}

"$daokit" init --root "$root" >/dev/null
mkdir -p "$root/team"
# TEAM_WORKFLOW names another workflow.toml (the e2e test's GitHub one).
cp "${TEAM_WORKFLOW:-$here/workflow.toml}" "$root/team/workflow.toml"
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

"$daokit" outbox new --root "$root" --to backend --body "POST /login returns a session token.
Sim: sleep ${seconds}s" "Login API"
"$daokit" outbox new --root "$root" --to frontend --body "A form that calls POST /login." "Login form"
"$daokit" outbox new --root "$root" --to qa --body "End-to-end test of the login." "Test login"
