#!/bin/sh
# Regenerates the Python-written ledgers of the verdict cases
# (testdata/python/{killed,interrupted-ttl1200,stale-beside-lease,llm})
# and the Python tool's answers to check on them. Needs a checkout of
# who96/DAOKit in $DAOKIT_PY and python3.11. Only the model of the LLM
# case is a stand-in (fakeopenai/openai); every ledger file is written by
# the Python tool's own code.
set -eu
PY=${DAOKIT_PY:?checkout of who96/DAOKit}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOTS=/tmp/pyi/roots
WORK=$(mktemp -d)
export PYTHONPATH="$PY/src"
cli() { python3.11 -m cli "$@"; }

fresh() { rm -rf "$ROOTS/$1"; mkdir -p "$ROOTS/$1"; cli init --root "$ROOTS/$1" >/dev/null; }

# killed: a run killed (SIGKILL) in its first dispatch, with the default
# 1200 s lease: the pipeline stays FREEZE, the lease ACTIVE.
fresh killed
mkdir -p "$WORK/bin"
cat >"$WORK/bin/codex-worker-shim" <<'SHIM'
#!/bin/sh
echo $$ >"$PYV_MARK.tmp" && mv "$PYV_MARK.tmp" "$PYV_MARK"
exec sleep 3600
SHIM
chmod +x "$WORK/bin/codex-worker-shim"
export PYV_MARK="$WORK/mark"
PATH="$WORK/bin:$PATH" python3.11 -m cli run --root "$ROOTS/killed" --task-id DKT-320 --run-id RUN-K --goal "Killed mid-step" &
run=$!
i=0; while [ ! -f "$PYV_MARK" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
kill -9 $run; kill "$(cat "$PYV_MARK")"; wait $run || true

# interrupted-ttl1200: run --simulate-interruption with the default lease.
fresh interrupted-ttl1200
cli run --root "$ROOTS/interrupted-ttl1200" --task-id DKT-310 --run-id RUN-B --goal "Resume me later" --simulate-interruption || true

# stale-beside-lease: the killed run, then the Python heartbeat daemon
# records a beat 1300 s ago and ticks (STALE, NO_OUTPUT_20M, one
# HEARTBEAT_STALE event), then a lease of the run is registered with a
# clock ten years ahead (a lease beat that stays recent whenever the test
# runs).
rm -rf "$ROOTS/stale-beside-lease"; cp -a "$ROOTS/killed" "$ROOTS/stale-beside-lease"
python3.11 - "$ROOTS/stale-beside-lease" <<'PYEOF'
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from state.store import create_state_backend
from reliability.heartbeat.daemon import HeartbeatDaemon
from reliability.heartbeat.evaluator import HeartbeatThresholds
from reliability.lease.registry import LeaseRegistry
root = Path(sys.argv[1])
store = create_state_backend(root / "state")
now = datetime.now(timezone.utc)
d = HeartbeatDaemon(task_id="DKT-320", run_id="RUN-K", step_id="S1", state_store=store,
    artifact_root=root / "artifacts",
    thresholds=HeartbeatThresholds(check_interval_seconds=60, warning_after_seconds=900, stale_after_seconds=1200),
    now_provider=lambda: now)
d.record_explicit_heartbeat(at=now - timedelta(seconds=1300))
print(d.tick())
ahead = now + timedelta(days=3650)
LeaseRegistry(state_store=store, now_provider=lambda: ahead).register(lane="default", step_id="S1",
    task_id="DKT-320", run_id="RUN-K", thread_id="cli-recent", pid=4343, ttl_seconds=1200)
PYEOF

# llm: a run on the LLM dispatch backend (role_lifecycle.analysis_result
# is an object).
fresh llm
PYTHONPATH="$PY/src:$HERE/fakeopenai" DAOKIT_DISPATCH_BACKEND=llm DAOKIT_LLM_API_KEY=k DAOKIT_LLM_MODEL=fake \
  python3.11 -m cli run --root "$ROOTS/llm" --task-id DKT-330 --run-id RUN-L --goal "Add a greeting"

for name in killed interrupted-ttl1200 stale-beside-lease llm; do
  g="$HERE/python-golden/$name"; mkdir -p "$g" "$HERE/python/$name"
  rm -rf "$HERE/python/$name/state"; cp -a "$ROOTS/$name/state" "$HERE/python/$name/state"
  rc=0; cli check --root "$ROOTS/$name" >"$g/check.stdout" 2>"$g/check.stderr" || rc=$?; echo $rc >"$g/check.rc"
  rc=0; cli check --json --root "$ROOTS/$name" >"$g/check-json.stdout" 2>"$g/check-json.stderr" || rc=$?; echo $rc >"$g/check-json.rc"
  rc=0; cli status --root "$ROOTS/$name" >"$g/status.stdout" 2>"$g/status.stderr" || rc=$?; echo $rc >"$g/status.rc"
done
rm -rf "$WORK"
