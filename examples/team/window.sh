#!/usr/bin/env bash
# Opens the window on the example team (`make team`): the first time, ROOT
# is set up by setup.sh (three issues, qa's blocked by backend's for a
# while); the window starts the controller, which starts a Lead per role.
# F6 shows the issues by role and state; /comment, /label, /retry and
# /close typed in the message box change the issue shown.
#
#   examples/team/window.sh ROOT      (DAOKIT=path/to/daokit to pick the binary)
#
# ROOT is kept (delete it to start over).
set -euo pipefail
daokit=${DAOKIT:-daokit}
here=$(cd "$(dirname "$0")" && pwd)
root=$1
if [ ! -f "$root/team/workflow.toml" ]; then
	mkdir -p "$root"
	DAOKIT=$daokit "$here/setup.sh" "$root" 30 >/dev/null
fi
exec "$daokit" --root "$root"
