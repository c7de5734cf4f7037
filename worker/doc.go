// Package worker runs daokit's workers: the process runtime. What they
// say is decoded and labelled by package transcript, which the window
// may import without reaching this runtime.
//
// # Running a worker
//
// Start runs a worker as a child process in a process group of its own,
// with its instruction on the command line or on stdin, a working
// directory, extra environment and a UTF-8 LC_CTYPE. Its pid is known as
// soon as Start returns, so that the controller can record it in a lease
// before anything depends on it. Both output streams are copied in full to
// stdout.log and stderr.log in the caller's artifact folder, and cut into
// lines that reach the caller as Records (time, stream, text, decoded
// events). A line longer than the line limit (64 KiB) is cut and marked.
//
// When the consumer falls behind, records queue up to a bound (1024
// records, 4 MiB); beyond it the oldest ordinary lines are dropped and
// counted on the next record, so that memory stays bounded under a flood
// while the artifact files still get every byte. Records that carry a
// session id, a result or an error are never dropped while the worker
// runs: pushing one into a queue full of such records waits, which slows
// the worker's pipe instead. Every line, delivered or not, counts as
// activity (LastActivity).
//
// Stop, a cancelled context or the timeout sends SIGTERM to the whole
// group, then SIGKILL after the grace period. When the group leader exits,
// whatever it left in its group is killed before the leader is reaped
// (the exited leader pins the group id until then). The Result gives the
// exit code or signal, why daokit stopped it, the duration, the pid, the
// output counts and what the worker said that matters (Summary). No
// goroutine outlives the process and the delivery of its records.
//
// # The worker protocol
//
// A worker may say things daokit understands by printing lines of this
// form, on stdout or stderr:
//
//	@daokit {"type":"heartbeat"}
//	@daokit {"type":"progress","message":"Reading internal/store/store.go"}
//	@daokit {"type":"message","text":"The flag belongs next to --root."}
//	@daokit {"type":"tool","name":"edit","detail":"cmd/status.go","id":"t1"}
//	@daokit {"type":"tool_result","name":"edit","id":"t1","ok":false,"detail":"conflict"}
//	@daokit {"type":"session","id":"7f3a…"}
//	@daokit {"type":"result","summary":"Added --json to status","ok":true,"usage":{"cost_usd":0.08}}
//	@daokit {"type":"error","message":"cannot reach the API","code":"E_NET"}
//
// The prefix "@daokit " must start the line exactly, followed by one JSON
// object with a "type"; anything else is ordinary output, shown as it is,
// so a worker's own text is never misread. Required fields: progress
// message, message text, tool name, tool_result name or id, session id,
// error message. "ok" defaults to true. "v" may give the protocol version
// (1). Unknown fields are ignored; an unknown type is counted as unknown
// and a broken message as malformed, and neither is fatal. Every line,
// protocol or not, counts as a sign of life, so heartbeats are only needed
// during long silent work. The session id is the worker's resume handle:
// the controller records it and may pass it back as {session} to a
// lane's resume_command. See FormatLine.
//
// # Agent CLIs
//
// Workers of kind "claude" (Claude Code's stream-json output) and "codex"
// (codex exec --json) are read by adapters that turn their JSON events
// into the same Events: session and thread ids, messages, tool calls and
// results, the final result with its cost. Lines they do not know are
// counted, never fatal.
//
// # The simulated worker
//
// RunSim is "daokit worker sim", the embedded default worker: a
// deterministic simulated coding agent that speaks the protocol, with
// switches to hang, go silent, crash, fail or flood for drills and tests.
package worker
