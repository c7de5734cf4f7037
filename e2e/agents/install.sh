#!/usr/bin/env bash
# Installs the pinned agent CLIs (package-lock.json) into
# e2e/agents/node_modules with `npm ci`, unless the install there is
# already of this very lock file and both CLIs answer: a second run costs
# two --version calls, not a 400 MB reinstall. Installs Node.js and npm
# with apt-get when they are missing.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "installing: nodejs npm"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq nodejs npm
fi

stamp=node_modules/.daokit-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	node_modules/.bin/claude --version >/dev/null 2>&1 &&
	node_modules/.bin/codex --version >/dev/null 2>&1; then
	echo "agent CLIs: already installed ($(node_modules/.bin/claude --version), $(node_modules/.bin/codex --version))"
	exit 0
fi
# Claude Code's engines field asks for node >= 22; its CLI is a native
# binary that node only copies into place (install.cjs), which works on
# the node 20 these machines have: the engine warning is expected.
npm ci --no-audit --no-fund --loglevel=error
node_modules/.bin/claude --version
node_modules/.bin/codex --version
echo "$want" > "$stamp"
