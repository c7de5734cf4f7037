#!/bin/sh
# Regenerates testdata/python-bundle/golden with the Python DAOKit's own
# `bundle` command. Usage: gen.sh <checkout of who96/DAOKit> (Python 3.11).
# The source tree (source/) is input and is not rewritten.
set -eu
py_src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
gen=/tmp/pyb/root
rm -rf /tmp/pyb && mkdir -p "$gen"
cp -R "$here/source/." "$gen/"
out="$here/golden"
rm -rf "$out" && mkdir -p "$out"

# py LABEL ARGS...: run daokit-cli in the generating root, keep stdout,
# stderr and the exit code.
py() {
	label=$1
	shift
	rc=0
	(cd "$gen" && PYTHONPATH="$py_src/src" python3.11 -m cli "$@") \
		>"$out/$label.stdout" 2>"$out/$label.stderr" || rc=$?
	echo "$rc" >"$out/$label.rc"
	[ -s "$out/$label.stderr" ] || rm -f "$out/$label.stderr"
}
summary() { cp "$gen/.artifacts/evidence-bundles/latest/summary.json" "$out/$1.summary.json"; }

py generate-json bundle --generate --root "$gen" --json
summary generate-json
py generate bundle --generate --root "$gen"
summary generate
py review-json bundle --review --root "$gen" --json
summary review-json
py review bundle --review --root "$gen"
py reverify-json bundle --reverify --root "$gen" --json
summary reverify-json
py reverify bundle --reverify --root "$gen"
py source-missing bundle --generate --root "$gen" --source-dir docs/reports/nowhere
py anchor-missing bundle --review --root "$gen" --bundle-root .artifacts/nowhere
py no-mode bundle --root "$gen"

# Drift: one bundled report changed after generation.
anchor="$gen/.artifacts/evidence-bundles/latest/docs/reports/final-run"
printf '# Report\nDrift\n' >"$anchor/evidence/agent_runs/DKT-041_RUN/reports/DKT-041/report.md"
py drift-json bundle --reverify --root "$gen" --json
py drift bundle --reverify --root "$gen"

# Torn: the manifest cut mid-line, the index header cut, a verification
# log without its command markers, a required file gone.
py generate-again bundle --generate --root "$gen"
{ head -c 100 "$anchor/evidence_manifest.sha256"; printf "\nnot a manifest line\n"; } >"$anchor/m" && mv "$anchor/m" "$anchor/evidence_manifest.sha256"
printf 'task_id\trun_id\tledger_sou' >"$anchor/run_evidence_index.tsv"
printf 'no markers here\n' >"$anchor/evidence/agent_runs/DKT-041_RUN/reports/DKT-041/verification.log"
rm "$anchor/RELEASE_SNAPSHOT.md"
py torn-review-json bundle --review --root "$gen" --json
py torn-json bundle --reverify --root "$gen" --json

# Missing manifest and index: nothing to check against.
rm "$anchor/evidence_manifest.sha256" "$anchor/run_evidence_index.tsv"
py missing-json bundle --reverify --root "$gen" --json
py missing-review-json bundle --review --root "$gen" --json
