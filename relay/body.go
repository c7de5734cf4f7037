package relay

import (
	"strings"

	"github.com/daokit/daokit/ledger"
)

// Hello is the body of the hello line a server sends first on every
// connection (and in answer to a hello request).
type Hello struct {
	// Server names the program, "daokit".
	Server string `json:"server,omitempty"`
	// PID is the controller's process id, for the window's status line.
	PID int `json:"pid,omitempty"`
	// Root is the absolute ledger root the server works on; a client of
	// another root refuses the connection (wrong_root). Empty means the
	// server does not say, and the client does not check.
	Root string `json:"root,omitempty"`
	// MaxLine is the server's cap on one line, in bytes without the
	// newline.
	MaxLine int `json:"max_line,omitempty"`
}

// Instruction is the body of an instruction request: what the person typed.
type Instruction struct {
	Text string `json:"text"`
	// TaskID and RunID, when set, name the task and run the instruction
	// becomes (`daokit run --task-id`); empty lets the controller choose.
	TaskID string `json:"task_id,omitempty"`
	RunID  string `json:"run_id,omitempty"`
	// FollowUp makes the text a follow-up of the task TaskID names (its
	// latest run when RunID is empty) instead of a task of its own: the
	// controller records it and hands it to that task's next step
	// attempt, and starts nothing new while the task is in progress.
	FollowUp bool `json:"follow_up,omitempty"`
}

// ControlKind names a control request. The set is closed on purpose: an
// open set would let a window smuggle "takeover" or "execute" past the
// action guard as a control kind.
type ControlKind string

// The control requests a person can type. The controller decides what each
// means for the run it names; the relay only forwards them.
const (
	ControlCancel ControlKind = "cancel"
	ControlRetry  ControlKind = "retry"
	ControlStatus ControlKind = "status"
	// ControlAccept asks the controller to merge a reviewed step's change
	// into its base branch; ControlReject to turn it down (with Reason).
	ControlAccept ControlKind = "accept"
	ControlReject ControlKind = "reject"
	// ControlAbandon drops a run that still waits for its lane (seed 004's
	// abandon): it ends FAILED with RUN_ABANDONED and never starts.
	ControlAbandon ControlKind = "abandon"
	// ControlIssue files an issue in the team's outbox (seed 003): Reason
	// holds "ROLE TITLE…", and the controller writes it for the person.
	ControlIssue ControlKind = "issue"
	// ControlComment, ControlLabel and ControlClose change an issue of
	// the team's outbox for the person (the window's issues view): Reason
	// holds "#N TEXT" (the comment; "/retry" asks the issue's Lead to run
	// it again), "#N LABEL" ("-LABEL" takes one off), "#N [WHY]".
	ControlComment ControlKind = "comment"
	ControlLabel   ControlKind = "label"
	ControlClose   ControlKind = "close"
)

// OnIssue reports whether k changes an issue of the team's outbox.
func (k ControlKind) OnIssue() bool {
	return k == ControlComment || k == ControlLabel || k == ControlClose
}

// Valid reports whether k is one of the known control kinds.
func (k ControlKind) Valid() bool {
	switch k {
	case ControlCancel, ControlRetry, ControlStatus, ControlAccept, ControlReject, ControlAbandon, ControlIssue,
		ControlComment, ControlLabel, ControlClose:
		return true
	}
	return false
}

// Control is the body of a control request. TaskID, RunID and StepID name
// the run it concerns; empty means "the current one", as the controller
// sees it.
type Control struct {
	Kind   ControlKind `json:"kind"`
	TaskID string      `json:"task_id,omitempty"`
	RunID  string      `json:"run_id,omitempty"`
	StepID string      `json:"step_id,omitempty"`
	// Reason is the person's why of a reject, handed to the next attempt.
	Reason string `json:"reason,omitempty"`
}

// Route is the controller's route summary: the five fields of the relay
// context's controller_route_summary. It is the ledger's one route type.
type Route = ledger.Route

// Ack is the body of an ack: the controller has made the request durable
// and says where it routed it.
type Ack struct {
	Route
	// Duplicate is true when the request id had already been acknowledged
	// (a resend after a reconnect); the Route is the original one.
	Duplicate bool `json:"duplicate,omitempty"`
	// EventID is the ledger event that recorded the request, if any.
	EventID string `json:"event_id,omitempty"`
}

// RunState is one worker run's state, as the controller's run state machine
// has it (idle, waiting, requesting, generating, persisting, completed,
// failed, cancelled, timedOut). Reason is a stable reason code.
type RunState struct {
	TaskID string `json:"task_id,omitempty"`
	RunID  string `json:"run_id,omitempty"`
	StepID string `json:"step_id,omitempty"`
	Lane   string `json:"lane,omitempty"`
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// ControllerState is the controller's own state (for example starting,
// ready, stopping) with a stable reason code.
type ControllerState struct {
	State  string `json:"state,omitempty"`
	PID    int    `json:"pid,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Status is the body of the reply to an observe request: a snapshot that
// the notices which follow it update.
type Status struct {
	Route      Route           `json:"route"`
	Runs       []RunState      `json:"runs,omitempty"`
	Controller ControllerState `json:"controller"`
}

// OutputLine is one line a worker printed.
type OutputLine struct {
	TaskID string `json:"task_id,omitempty"`
	RunID  string `json:"run_id,omitempty"`
	StepID string `json:"step_id,omitempty"`
	Lane   string `json:"lane,omitempty"`
	// Stream is "stdout" or "stderr".
	Stream string `json:"stream,omitempty"`
	// Line is the line as the controller words it, in its own language:
	// what a client shows when the line has neither Parts nor Reason (a
	// plain line the worker printed), and what an older client shows.
	Line string `json:"line"`
	// Truncated is set when the server cut Line to fit the line cap.
	Truncated bool `json:"truncated,omitempty"`
	// Parts are the events of a structured line (an agent's tool call,
	// message, session), for the client to word in its reader's language.
	Parts []OutputPart `json:"parts,omitempty"`
	// Reason is a reason code the line reports (an /accept the controller
	// refused), for the client to word (vocab.Reason).
	Reason string `json:"reason,omitempty"`
	// Message is what the controller itself says on the line (a budget
	// warning): a message id of the catalogs, with Args its template's
	// arguments, for the client to word.
	Message string            `json:"message,omitempty"`
	Args    map[string]string `json:"args,omitempty"`
}

// OutputPart is one event of a worker's structured line before it is
// worded: its event type (transcript.EventType: "tool", "session", …),
// its detail as the worker said it, and whether it failed.
type OutputPart struct {
	Type   string `json:"type"`
	Detail string `json:"detail,omitempty"`
	Failed bool   `json:"failed,omitempty"`
}

// NoticeKind says what a notice reports.
type NoticeKind string

// Notice kinds.
const (
	// NoticeRoute carries the new Route after the controller re-routed.
	NoticeRoute NoticeKind = "route"
	// NoticeRunState carries a run's new RunState.
	NoticeRunState NoticeKind = "run_state"
	// NoticeWorkerOutput carries one OutputLine. These are the notices a
	// slow reader loses first.
	NoticeWorkerOutput NoticeKind = "worker_output"
	// NoticeController carries the controller's ControllerState.
	NoticeController NoticeKind = "controller"
	// NoticeStatus carries a full Status. The client library delivers one
	// after every successful observe, in order with the notices that follow.
	NoticeStatus NoticeKind = "status"
	// NoticeDropped says that Dropped notices were lost at this point of the
	// stream because the reader was too slow. Only the relay emits it.
	NoticeDropped NoticeKind = "dropped"
)

// Notice is the body of a notice. Exactly the field that matches Kind is
// set.
type Notice struct {
	Kind       NoticeKind       `json:"kind"`
	Route      *Route           `json:"route,omitempty"`
	Run        *RunState        `json:"run,omitempty"`
	Output     *OutputLine      `json:"output,omitempty"`
	Controller *ControllerState `json:"controller,omitempty"`
	Status     *Status          `json:"status,omitempty"`
	Dropped    int              `json:"dropped,omitempty"`
}

// check reports a notice the controller may not send: an unknown kind, or
// one without the field its kind needs.
func (n Notice) check() error {
	ok := false
	switch n.Kind {
	case NoticeRoute:
		ok = n.Route != nil
	case NoticeRunState:
		ok = n.Run != nil
	case NoticeWorkerOutput:
		ok = n.Output != nil
	case NoticeController:
		ok = n.Controller != nil
	case NoticeStatus:
		ok = n.Status != nil
	}
	if !ok {
		return &Error{Code: CodeBadRequest, Detail: "notice " + string(n.Kind)}
	}
	return nil
}

// queueKey says how a queued notice may be replaced or dropped. Notices
// that report a state carry a key: a newer one with the same key replaces
// the queued one, since only the latest state matters to a reader. Worker
// output has no key and is droppable: under pressure it is lost first (and
// counted), so that state changes get through.
func (n Notice) queueKey() (key string, droppable bool) {
	switch n.Kind {
	case NoticeRoute, NoticeController, NoticeStatus:
		return string(n.Kind), false
	case NoticeRunState:
		if n.Run == nil {
			return "", false
		}
		return strings.Join([]string{string(n.Kind), n.Run.TaskID, n.Run.RunID, n.Run.StepID}, "\x00"), false
	case NoticeWorkerOutput:
		return "", true
	}
	return "", false
}
