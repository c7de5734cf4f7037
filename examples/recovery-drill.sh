#!/usr/bin/env bash
# The recovery workflow, for real: a controller, the simulated worker told to
# hang, the controller's own takeover and handoff, and the keep set restored
# from the handoff package. Usage:
#
#   examples/recovery-drill.sh [ROOT]      (DAOKIT=path/to/daokit to pick the binary)
#
# It prints each step and exits non-zero if the system did not recover.
set -euo pipefail
daokit=${DAOKIT:-daokit}
root=${1:-$(mktemp -d)}
step() { printf '\n== %s\n' "$*"; }

step "1. A ledger whose worker hangs on its first attempt"
"$daokit" init --root "$root" >/dev/null
marker="$root/hung-once"
cat >"$root/daokit.toml" <<TOML
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "200ms"
warning_after = "1s"
stale_after = "2s"

[[lanes]]
name = "worker"
kind = "sim"
command = ["sh", "-c", "if [ ! -f $marker ]; then touch $marker; exec {daokit} worker sim --hang-after 2 -- \"\$1\"; fi; exec {daokit} worker sim --duration 1s -- \"\$1\"", "sh", "{instruction}"]
stop_grace = "200ms"
TOML
echo "root: $root"

step "2. Start the controller (the window does this for you)"
"$daokit" controller --root "$root" >"$root/controller.out" 2>&1 &
controller=$!
trap 'kill "$controller" 2>/dev/null || true; wait "$controller" 2>/dev/null || true' EXIT

step "3. End-of-turn health check before work: healthy, nothing to do"
"$daokit" check --root "$root"

step "4. Send an instruction; the worker goes silent, the controller takes over"
"$daokit" send --root "$root" --no-start --wait "add a --json flag to status"

step "5. What the ledger recorded"
"$daokit" replay --root "$root" --limit 200 | grep -E "HEARTBEAT_WARNING|HEARTBEAT_STALE|LEASE_TAKEOVER|STEP_COMPLETED"

step "6. The handoff package the controller wrote"
grep -E '"(task_id|run_id|current_step|next_action|goal|latest_instruction)"' "$root/state/handoff_package.json"

step "7. Restore the key context: compact an empty context against the ledger"
echo '{}' | "$daokit" compact --root "$root"

step "8. End-of-turn health check after recovery"
"$daokit" check --root "$root"
"$daokit" status --root "$root" | sed -n 1p
