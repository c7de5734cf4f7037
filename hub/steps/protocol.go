// Package steps is how a root's controller hands a step to an agent host
// through the hub, and how the step's output and end come back (issue
// 31). It needs nothing but nats.go and hub/naming, so that a
// daokit, which never links the server (cmd/daokit-hub alone does), carries it.
//
// The controller's side is a relay: a small process the controller
// starts as the step's worker (`daokit worker hub`), which offers the
// step and prints what comes back exactly as a local worker would, so
// that the controller reads, logs, watches and reads back a remote step
// as it does a local one. The agent's side is Agent (package agent).
//
// A step's subjects, for the step's key k (Key):
//
//	daokit.<root>.steps.<lane>    the step, on the work queue (msg id k.D)
//	daokit.<root>.results.k       start, line, skip records of the agents
//	daokit.<root>.results.k-e     end records (agents; the relay's own)
//	daokit.<root>.results.k-d     dispatch and closed records (the relay)
//	daokit.<root>.results.k-s     stop requests (the relay; not waited for)
//	daokit.<root>.results.k-c     claims of a delivery (agents: claim.go)
//	daokit.<root>.live.k          who holds the step, its beats (agents; no stream: live.go)
//
// D is the dispatch number: the relay that offers a step afresh takes
// the next one. A relay that finds the last dispatch neither closed nor
// given up (its relay died with its controller) follows that dispatch
// instead of offering the step again: a successor follows the same
// step, it does not start a second run. A dispatch that ran to its end
// unstopped, whose end the relay's controller lacks, is read back: its
// output and end printed again, nothing offered, the step never earned
// again. The controller says which: the attempt it is about to make
// (Step.Attempt; attempt numbers continue across controllers, so a
// dispatch of it was offered by a predecessor that died or was deposed
// before recording it), or an earlier attempt whose end it lacks
// (Step.ReadBack). The dispatch record names the attempt that offered
// it, the closed record the attempt whose relay reported its end. An
// open dispatch of the relay's own attempt is followed even when a stop
// is on record (a predecessor stepping down asked for it): its end
// decides. Every record carries D and the delivery (the work queue's
// delivery count of the agent that sent it): the relay prints only the
// records of the newest delivery of its dispatch, so a late record of
// an agent that lost the step is ignored.
package steps

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Version is the protocol version of Step and Record.
const Version = 1

// SelfArg stands, in Step.Argv, for the daokit binary of whoever runs
// the step: the controller's path means nothing on an agent host.
const SelfArg = "{daokit}"

// Step is what a relay offers to the agents of a lane.
type Step struct {
	V int `json:"v"`
	// Key names the step's result subjects (see Key).
	Key string `json:"key"`
	// Dispatch is the dispatch number D.
	Dispatch int    `json:"dispatch"`
	TaskID   string `json:"task_id"`
	RunID    string `json:"run_id"`
	StepID   string `json:"step_id"`
	Lane     string `json:"lane"`
	// Attempt is the controller's attempt at the step, numbered on
	// across restarts, retries and controllers: one number is one
	// attempt for good. A closed dispatch whose closed record names it
	// was offered by a predecessor for this very attempt (the offer comes
	// before the record of the step's start, and a predecessor that died
	// or was deposed between the two left no record of it), and is read
	// back if it ran to its end unstopped, never run again; an open one
	// is followed, stop or not.
	Attempt int `json:"attempt"`
	// ReadBack, when set, is an earlier attempt whose end the controller
	// lacks: its relay was stopped as stuck, or died with a previous
	// controller without the end in its logs. The dispatch that attempt's
	// relay followed (the last one: offered by it or by an earlier
	// attempt, still open; or closed by it) is read back if it ran to its
	// end unstopped, as a local worker's logs are read back.
	ReadBack int `json:"read_back,omitempty"`
	// Kind is the worker kind (the decoder: sim, command, claude,
	// codex).
	Kind string   `json:"kind"`
	Argv []string `json:"argv"`
	// Env is added to the agent's environment (the step's DAOKIT_*
	// variables, the lane's env).
	Env      []string `json:"env,omitempty"`
	Stdin    string   `json:"stdin,omitempty"`
	UseStdin bool     `json:"use_stdin,omitempty"`
	// TimeoutMS and StopGraceMS are the lane's timeout and stop grace.
	TimeoutMS   int64 `json:"timeout_ms,omitempty"`
	StopGraceMS int64 `json:"stop_grace_ms,omitempty"`
	// Remote and Commit, when set, are where the agent fetches the
	// step's base commit from and which; Subdir is the lane's folder
	// inside the checkout.
	Remote string `json:"remote,omitempty"`
	Commit string `json:"commit,omitempty"`
	Subdir string `json:"subdir,omitempty"`
	// Bundle, set instead of Remote, says the relay published a git
	// bundle holding Commit to the root's bundle bucket (see
	// Conn.PublishBundle): for agents that reach no remote.
	Bundle bool `json:"bundle,omitempty"`
	// SpawnAt and RelayAt (Unix nanoseconds) are when the controller
	// started the step's relay and when the relay's own code began: the
	// agent copies them into its start record, so that the wait from an
	// instruction to its step's process splits into its parts (the
	// relay's process start among them). A step the controller offered
	// ahead of its relay (Conn.OfferAhead) has both at the instant the
	// controller began: no process start lies between.
	SpawnAt int64 `json:"spawn_at,omitempty"`
	RelayAt int64 `json:"relay_at,omitempty"`
}

// EnvSpawnAt carries Step.SpawnAt from the controller to the relay it
// starts (the relay's step is written before the relay starts).
const EnvSpawnAt = "DAOKIT_SPAWN_AT"

// Timeout is the step's timeout, 0 for none.
func (s Step) Timeout() time.Duration { return time.Duration(s.TimeoutMS) * time.Millisecond }

// StopGrace is the step's grace between SIGTERM and SIGKILL.
func (s Step) StopGrace() time.Duration { return time.Duration(s.StopGraceMS) * time.Millisecond }

// The record types.
const (
	// TypeStart: an agent started the step (Agent, PID, QueuedAt,
	// StartAt).
	TypeStart = "start"
	// TypeLine: lines of the step's output (Lines), sent in batches:
	// the hub fsyncs every message, and a message per line would put a
	// disk sync per line on the way to the step's end.
	TypeLine = "line"
	// TypeEnd: the step's process ended (ExitCode, Signal, Stopped,
	// Error); Delivery 0 is the relay's own, for a step given up before
	// any agent started it.
	TypeEnd = "end"
	// TypeSkip: an agent was handed a dispatch that had already ended
	// (its first agent died between the end and the acknowledgement) and
	// did not run it again; the end on record stands.
	TypeSkip = "skip"
	// TypeDispatch and TypeClosed: a relay offered dispatch D; a relay
	// printed D's end, so D is over.
	TypeDispatch = "dispatch"
	TypeClosed   = "closed"
	// TypeStop: the relay asks the agent running D to stop it.
	TypeStop = "stop"
)

// Line is one line of a step's output, without its newline.
type Line struct {
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// The output streams of a Line.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// Record is one message on a step's result subjects.
type Record struct {
	V        int    `json:"v"`
	Type     string `json:"type"`
	Dispatch int    `json:"dispatch"`
	Delivery int    `json:"delivery"`
	Agent    string `json:"agent,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Seq      int64  `json:"seq,omitempty"`
	Lines    []Line `json:"lines,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	Signal   int    `json:"signal,omitempty"`
	Stopped  string `json:"stopped,omitempty"`
	Error    string `json:"error,omitempty"`
	// QueuedAt, ReceivedAt and StartAt (TypeStart, Unix nanoseconds) are
	// when the hub stored the step's offer, when the agent received it
	// and when it was about to start its process (its own start
	// excluded); SpawnAt and RelayAt are the step's (see Step): how long
	// the step waited to be dispatched, and where.
	QueuedAt   int64 `json:"queued_at,omitempty"`
	ReceivedAt int64 `json:"received_at,omitempty"`
	StartAt    int64 `json:"start_at,omitempty"`
	SpawnAt    int64 `json:"spawn_at,omitempty"`
	RelayAt    int64 `json:"relay_at,omitempty"`
	// Patch (TypeEnd) names the patch of what a step in a worktree
	// changed (see PatchName); empty: it changed nothing.
	Patch string `json:"patch,omitempty"`
	// Attempt is the controller's attempt that offered the dispatch
	// (TypeDispatch), or whose relay reported its end and closed it
	// (TypeClosed): see Step.Attempt and Step.ReadBack.
	Attempt int `json:"attempt,omitempty"`
	// Ran (TypeClosed) says the end the closing relay reported was an
	// agent's, its step run to its end unstopped: a controller that
	// lacks that end reads the dispatch back (see dispatchOf). The
	// closed record is what says so, not the last end on record: a
	// relay that its controller stopped before it had read the agent's
	// end publishes a cancel of its own after it (see follower.stop).
	Ran bool `json:"ran,omitempty"`
	// CPUMillis (TypeBeat) is the CPU time the step's process used so
	// far, in milliseconds (see TypeBeat).
	CPUMillis int64 `json:"cpu_ms,omitempty"`
}

// Key is the one subject token of a step of a run: run ids and step ids
// may hold characters a subject token may not, and a step id repeats
// across runs. 32 hex digits of a hash of both.
func Key(runID, stepID string) string {
	h := sha256.Sum256([]byte(runID + "\x00" + stepID))
	return hex.EncodeToString(h[:16])
}

// Suffixes of a step's other result subjects (see the package comment).
const (
	suffixEnd      = "-e"
	suffixDispatch = "-d"
	suffixStop     = "-s"
	suffixClaim    = "-c"
)

// StepMsgID is the step message's Nats-Msg-Id: offering dispatch D again
// (a successor's relay) stores nothing within the dedupe window.
func StepMsgID(key string, dispatch int) string { return key + "." + strconv.Itoa(dispatch) }

// recordMsgID is a record's Nats-Msg-Id: an agent that publishes one
// twice (a retry after a lost acknowledgement) stores it once.
func recordMsgID(key string, r Record) string {
	id := key + "." + strconv.Itoa(r.Dispatch) + "." + strconv.Itoa(r.Delivery) + "." + r.Type + "." + strconv.FormatInt(r.Seq, 10)
	if r.Type == TypeStart {
		// Two agents may be handed the same delivery (a hub killed
		// before it wrote down that it delivered it): both starts are
		// kept, and one agent yields (see agent's hold.go).
		id += "." + r.Agent
	}
	return id
}
