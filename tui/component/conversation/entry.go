package conversation

import (
	"strings"
	"time"

	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// Kind says who an entry is from.
type Kind int

// Entry kinds.
const (
	KindUser       Kind = iota // what the person typed
	KindController             // the controller's replies and reports
	KindSystem                 // the window's own notes (connection, start-up)
	KindError                  // something failed
)

// Delivery is where a person's message stands.
type Delivery int

// Delivery states of a KindUser entry.
const (
	Sending Delivery = iota
	Delivered
	Failed
	// Unknown: sent by an earlier run of the window, which closed before
	// the answer came.
	Unknown
)

// entry is one line of the conversation, with its wrapped rendering
// cached per width and language.
type entry struct {
	kind     Kind
	seq      int // the window's number for a forwarded message; 0 otherwise
	at       time.Time
	text     string
	id       string   // a catalog id, rendered in the current language
	args     []string // its arguments, as key, value pairs
	labeled  []string // argument, label kind pairs: values shown by their label
	delivery Delivery
	note     string // the ack's route or the failure, for KindUser
	// task is the task the entry is about ("" for the window's own
	// notes): a window focused on a task shows its entries and the
	// global ones.
	task string
	// followUp: a message the person sent to task as a follow-up.
	followUp bool

	// fold is the key of what this line says once (a step's run states,
	// a step's review; see fold.go), trail the run states it went
	// through, event the ledger event it came from.
	fold  string
	trail []string
	event string
	// slot is a step line's entry of the projection (see fold.go).
	slot projection.Entry

	lines []string
	gen   uint64
}

// render wraps the entry into lines of w cells.
func (e *entry) render(env *component.Env, w int) []string {
	st := env.Styles
	cs := st.Conversation
	stamp := cs.Time.Render(env.Clock(e.at)) + " "
	var who, body string
	txt := e.message(env)
	switch e.kind {
	case KindUser:
		who = cs.User.Render(env.T("tui.conversation.you")) + " "
		body = txt
	case KindController:
		who = cs.Controller.Render(env.T("tui.conversation.controller")) + " "
		body = txt
	case KindError:
		body = cs.Error.Render(txt)
	default:
		body = cs.System.Render(txt)
	}
	head := stamp + who
	indent := strings.Repeat(" ", min(text.Width(head), w/3))
	var out []string
	for i, para := range strings.Split(body, "\n") {
		prefix := indent
		if i == 0 {
			prefix = head
		}
		room := max(w-text.Width(prefix), 4)
		for j, l := range text.Wrap(text.Sanitize(para, env.Wide), room) {
			if i > 0 || j > 0 {
				prefix = indent
			}
			out = append(out, prefix+l)
		}
	}
	if e.kind == KindUser {
		out = append(out, indent+e.deliveryLine(env))
	}
	return out
}

// catalogEntry is an entry said by catalog id, its arguments given as
// name, value pairs.
func catalogEntry(kind Kind, id string, kv ...string) *entry {
	return &entry{kind: kind, id: id, args: kv}
}

// labels pairs arguments with the label kind their values are shown by.
func labels(nameKind ...string) []string { return nameKind }

// message is the entry's text in env's language.
func (e *entry) message(env *component.Env) string {
	if e.id == "" {
		return e.text
	}
	kv := make([]any, len(e.args))
	for i, a := range e.args {
		kv[i] = a
	}
	for i := 0; i+1 < len(e.labeled); i += 2 {
		for j := 0; j+1 < len(kv); j += 2 {
			if kv[j] == e.labeled[i] {
				kv[j+1] = label(env, e.labeled[i+1], e.args[j+1])
			}
		}
	}
	return env.T(e.id, kv...)
}

// deliveryLine says whether the controller has the message.
func (e *entry) deliveryLine(env *component.Env) string {
	st := env.Styles
	g := st.Glyphs
	switch e.delivery {
	case Delivered:
		return st.ToneStyle(theme.ToneOK).Render(g.Done+" "+env.T("tui.conversation.delivered")) + " " + st.Muted.Render(e.note)
	case Failed:
		return st.ToneStyle(theme.ToneBad).Render(g.Failed+" "+env.T("tui.conversation.failed")) + " " + st.Muted.Render(e.note)
	case Unknown:
		return st.Muted.Render(env.T("tui.conversation.unknown_delivery"))
	}
	return st.Muted.Render(g.Running + " " + env.T("tui.conversation.sending"))
}
