// Package compact keeps the observer relay's context short: deterministic
// keep/drop compaction of the relay context, the decisions of when to
// compact, and the pre-compact hooks that compaction runs as.
//
// # The relay context
//
// A Context is the JSON object the Python DAOKit's relay keeps: a
// relay_context member with the keep set, five pruned lists
// (execution_logs, status_reports, failure_noise, api_error_dumps,
// evidence_paths) and any other members, which compaction leaves as they
// are, in their place. Encode writes it as the Python tool writes JSON
// files (indent 2, non-ASCII escaped), so the same context always gives
// the same bytes.
//
// # Compaction
//
// Compact is a pure function from a context (and what the ledger knows,
// as Facts) to its compacted form and a Report. It follows the Python
// DAOKit's compact_observer_relay_context and fixes what that function
// gets wrong:
//
//   - Keep set. relay_context keeps exactly goal, constraints,
//     latest_instruction, current_blockers and controller_route_summary
//     (task_id, run_id, active_lane, active_step, next_action, plus any
//     other route members), in that order, text trimmed. A field that is
//     absent, blank or of the wrong type is taken from the ledger's Facts;
//     what neither knows is left out. user_profile (an object) and
//     updated_at (text), the rest of seed 002's minimal shape, stay too,
//     first and last. Other relay_context members go (Python drops
//     user_profile as well).
//   - Lists. Every object entry is normalized as Python normalizes it
//     (text trimmed, blank text left out, nested objects likewise, lists
//     as they are). Then execution logs of finished work (status
//     completed, done, success, accepted, resolved) go; entries marked
//     "stale": true go; failure noise that is resolved goes; entries whose
//     task_id or run_id differs from the route's go as stale (a newer
//     instruction replaced that work); entries of the wrong type go.
//   - Dumps. An API error given as text becomes {"message": text}, unless
//     it is an unstructured dump (a traceback, an HTML page, a JSON body
//     kept as text): then it goes, or, if it names an error code such as
//     E_TIMEOUT, becomes {"code": "E_TIMEOUT"}. An object whose message is
//     a dump loses the message (keeping a code found in it); an object
//     with neither structure (code, hint, reason_code, retryable, status)
//     nor message goes. Python kept a dump that named a code, then dropped
//     it on the next pass; this version gives the same answer every time.
//   - Evidence paths. Text only, trimmed, not blank; paths that point at
//     dumps (stdout, stderr, traceback, stack traces, error dumps) go, and
//     so do repeats of a path (compared after path.Clean).
//   - Duplicates. An entry with a dedup_key repeats an earlier one with
//     the same event_type, dedup_key and step_id; any other entry repeats
//     an earlier one with the same normalized content (key order and
//     escapes do not matter). The first stays. A status report is also
//     superseded by a later report of the same status for the same
//     subject (event_type, task_id, run_id, step_id, lane): the latest
//     stays.
//   - A list that ends up empty, or that is not a list, is removed; a
//     null one is left alone.
//
// Compacting a compacted context changes nothing, and the five keep-set
// facts are answerable after any compaction (Context.Facts); Facts.Missing
// is the seed's self-check, naming the ones a context cannot answer. The package
// tests prove both over generated contexts, and FuzzCompact looks for
// counter-examples.
//
// # When to compact
//
// Triggers.Decide tells the window whether and why to compact: the context
// has grown past a number of entries or bytes, the same status has been
// reported several times in a row, a new instruction arrived while old
// logs remain, or the health state entered or left WARNING, STALE or
// LEASE_TAKEOVER.
//
// # Hooks
//
// Hooks runs the window's hooks over its relay context. Compaction itself
// is the built-in pre-compact hook. Further hooks are Go functions or
// external commands configured in daokit.toml, which the hooks package
// runs (process group, timeout, capped output, reasons); a command reads
// the context as JSON on stdin and writes the new context as JSON on
// stdout. A hook that
// fails, times out or prints something other than a JSON object is
// skipped, with the reason in its Result, and the context stays as it was
// before that hook: never lost, never half-applied. The window runs the
// pre-compact hooks; the controller runs the other three through the
// hooks package itself.
//
// compact does no IO except running the hook commands it is handed.
package compact
