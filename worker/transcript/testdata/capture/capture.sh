#!/usr/bin/env bash
# Captures the real CLIs' stdout and stderr against the fake model
# (internal/fakemodel/cmd/fakemodel in daokit), one case a pair of files,
# and writes cases.tsv: case, exit code, seconds, env, command.
# usage: capture.sh FAKEMODEL_BINARY [CASE-REGEX]
set -u
FM=$1; ONLY=${2:-}
OUT=$(cd "$(dirname "$0")" && pwd)
W=/tmp/cap
BIN=${DAOKIT_AGENTS_BIN:-$(cd "$OUT/../../../../e2e/agents/node_modules/.bin" && pwd)}
rm -rf $W/proj $W/home $W/codexhome $W/nogit; mkdir -p $W/home $W/codexhome $W/nogit
echo 'export PATH=/usr/local/go/bin:$PATH' > $W/home/.profile
P=$W/proj; mkdir -p $P
( cd $P && git init -q -b main && printf 'line one\n' > hello.txt && printf 'module example.com/m\n\ngo 1.22\n' > go.mod &&
  printf 'package m\n\nfunc Add(a, b int) int { return a + b }\n' > add.go &&
  printf 'package m\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("1+2")\n\t}\n}\n\nfunc TestBroken(t *testing.T) {\n\tif Add(2, 2) != 5 {\n\t\tt.Fatalf("Add(2, 2) = %%d, want 5", Add(2, 2))\n\t}\n}\n' > add_test.go &&
  git add . && git -c user.email=t@example.com -c user.name=t commit -qm init )
python3 $OUT/rules.py $P $W/rules.json
rm -f $W/url.txt
$FM -script $W/rules.json -log $W/requests.jsonl > $W/url.txt 2>$W/srv.err &
SRV=$!
while [ ! -s $W/url.txt ]; do sleep 0.1; done
URL=$(cat $W/url.txt)
cat > $W/codexhome/config.toml <<EOF
model = "gpt-5-codex"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "$URL/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
EOF
BASE=(PATH=$BIN:/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin HOME=$W/home CODEX_HOME=$W/codexhome LANG=C.UTF-8
  ANTHROPIC_BASE_URL=$URL ANTHROPIC_API_KEY=sk-ant-dummy CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
  DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 OPENAI_API_KEY=sk-dummy)
: > $OUT/cases.tsv.new
# cap CASE DIR [VAR=VALUE ...] -- COMMAND...
cap() {
	local name=$1 dir=$2; shift 2
	local extra=()
	while [ "$1" != "--" ]; do extra+=("$1"); shift; done; shift
	if [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]]; then return; fi
	# a resume (NORESET=1) goes on from the tree its first run left
	[ -n "${NORESET:-}" ] || ( cd $P && git checkout -q . && git clean -qfd )
	local t0=$(date +%s.%N)
	( cd $dir && env -i "${BASE[@]}" "${extra[@]}" timeout 300 "$@" </dev/null >$OUT/$name.stdout.txt 2>$OUT/$name.stderr.txt )
	local rc=$?
	local t1=$(date +%s.%N)
	printf '%s\t%s\t%.1f\t%s\t%s\n' "$name" "$rc" "$(echo "$t1 - $t0" | bc)" "${extra[*]:-}" "$*" >> $OUT/cases.tsv.new
	echo "$name rc=$rc"
}
sid() { grep -o '"session_id":"[^"]*"' $OUT/$1.stdout.txt | head -1 | cut -d'"' -f4; }
tid() { grep -o '"thread_id":"[^"]*"' $OUT/$1.stdout.txt | head -1 | cut -d'"' -f4; }
CL=(claude -p --output-format stream-json --verbose)
CX=(codex exec --json)

cap claude-edit $P -- "${CL[@]}" --permission-mode acceptEdits -- "CASE-edit: write hello.txt"
cap claude-denied-default $P -- "${CL[@]}" -- "CASE-denied: edit hello.txt and build"
cap claude-denied-acceptEdits $P -- "${CL[@]}" --permission-mode acceptEdits -- "CASE-denied: edit hello.txt and build"
cap claude-401 $P CLAUDE_CODE_MAX_RETRIES=2 -- "${CL[@]}" -- "CASE-401: anything"
cap claude-401-default-retries $P -- "${CL[@]}" -- "CASE-401: anything"
cap claude-no-key $P ANTHROPIC_API_KEY= -- "${CL[@]}" -- "CASE-edit: anything"
cap claude-429-then-ok $P -- "${CL[@]}" -- "CASE-429: anything"
cap claude-529 $P CLAUDE_CODE_MAX_RETRIES=1 -- "${CL[@]}" -- "CASE-529: anything"
cap claude-stream-error-529 $P CLAUDE_CODE_MAX_RETRIES=1 -- "${CL[@]}" -- "CASE-stream-529: anything"
cap claude-500 $P CLAUDE_CODE_MAX_RETRIES=1 -- "${CL[@]}" -- "CASE-500: anything"
cap claude-maxturns $P IS_SANDBOX=1 -- "${CL[@]}" --permission-mode bypassPermissions --max-turns 1 -- "CASE-maxturns: two steps"
cap claude-test-fails $P IS_SANDBOX=1 -- "${CL[@]}" --permission-mode bypassPermissions -- "CASE-testfail: run the tests"
cap claude-test-passes $P IS_SANDBOX=1 -- "${CL[@]}" --permission-mode bypassPermissions -- "CASE-testpass: run the tests"
cap claude-resume-1 $P -- "${CL[@]}" --permission-mode acceptEdits -- "CASE-resume: first part"
S=$(sid claude-resume-1)
# the resume runs on the first run's edit: no reset in between
NORESET=1 cap claude-resume-2 $P -- "${CL[@]}" --permission-mode acceptEdits --resume "$S" -- "CASE-resume: second part"
NORESET=1 cap claude-resume-3-ddash $P -- "${CL[@]}" --permission-mode acceptEdits --resume "$S" -- "-CASE-resume: third part"
cap claude-denied-acceptEdits-allowedTools-Bash $P -- "${CL[@]}" --permission-mode acceptEdits --allowedTools Bash -- "CASE-denied: edit hello.txt and build"
cap claude-denied-dontAsk $P -- "${CL[@]}" --permission-mode dontAsk -- "CASE-denied: edit hello.txt and build"
cap claude-acceptEdits-outside $P -- "${CL[@]}" --permission-mode acceptEdits -- "CASE-outside: write outside the project"
cap claude-dash-without-ddash $P -- "${CL[@]}" "-CASE-dash starts with a dash"
cap claude-dash-with-ddash $P -- "${CL[@]}" -- "-CASE-dash starts with a dash"
cap claude-root-bypass $P -- "${CL[@]}" --permission-mode bypassPermissions -- "CASE-root: write and run id"
cap claude-root-bypass-IS_SANDBOX $P IS_SANDBOX=1 -- "${CL[@]}" --permission-mode bypassPermissions -- "CASE-root: write and run id"
cap claude-root-dangerously-skip $P -- "${CL[@]}" --dangerously-skip-permissions -- "CASE-root: write and run id"

cap codex-edit $P -- "${CX[@]}" --sandbox workspace-write -- "CASE-cx-edit: change hello.txt"
cap codex-edit-gpt-5.5-freeform-patch $P -- "${CX[@]}" -c 'model="gpt-5.5"' --sandbox workspace-write -- "CASE-cx-freeform: change hello.txt"
cap codex-denied-default $P -- "${CX[@]}" -- "CASE-cx-denied: change hello.txt"
cap codex-401 $P -- "${CX[@]}" -- "CASE-cx-401: anything"
cap codex-no-key $P OPENAI_API_KEY= -- "${CX[@]}" -- "CASE-cx-dash: anything"
cap codex-429 $P -- "${CX[@]}" -- "CASE-cx-429: anything"
cap codex-stream-error-500 $P -- "${CX[@]}" -- "CASE-cx-stream-500: anything"
cap codex-500 $P -- "${CX[@]}" -- "CASE-cx-500: anything"
cap codex-test-fails $P -- "${CX[@]}" --sandbox workspace-write -- "CASE-cx-testfail: run the tests"
cap codex-test-passes $P -- "${CX[@]}" --sandbox workspace-write -- "CASE-cx-testpass: run the tests"
cap codex-resume-1 $P -- "${CX[@]}" --sandbox workspace-write -- "CASE-cx-resume: first part"
T=$(tid codex-resume-1)
NORESET=1 cap codex-resume-2 $P -- "${CX[@]}" -c sandbox_mode=\"workspace-write\" resume "$T" "CASE-cx-resume: second part"
NORESET=1 cap codex-resume-3-ddash $P -- "${CX[@]}" -c sandbox_mode=\"workspace-write\" resume "$T" -- "-CASE-cx-resume: third part"
cap codex-workspace-write-outside $P -- "${CX[@]}" --sandbox workspace-write -- "CASE-cx-outside: write outside"
cap codex-dash-without-ddash $P -- "${CX[@]}" "-CASE-cx-dash starts with a dash"
cap codex-dash-with-ddash $P -- "${CX[@]}" -- "-CASE-cx-dash starts with a dash"
cap codex-outside-git $W/nogit -- "${CX[@]}" -- "CASE-cx-dash outside git"

kill $SRV; wait $SRV 2>/dev/null
[ -n "$ONLY" ] || cp $W/requests.jsonl $OUT/requests.jsonl
if [ -z "$ONLY" ]; then mv $OUT/cases.tsv.new $OUT/cases.tsv; else cat $OUT/cases.tsv.new; rm $OUT/cases.tsv.new; fi
