package issues

import (
	"strconv"
	"time"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// DiffLines bounds the diff lines a thread shows; the rest is counted.
const DiffLines = 200

// workerLines are an open issue's Worker in its thread, w cells wide: a
// heading with its attempt and heartbeat, the tail of its output, and
// its change (files with their counts, then the diff).
func (m *Model) workerLines(wk *Worker, w int) []string {
	if wk == nil {
		return nil
	}
	env := m.Env
	tail := env.Tail()
	var out []string
	state := env.T("tui.issues.worker.stopped")
	switch {
	case wk.Status != nil && wk.Status.PID == 0:
		state = env.T("tui.issues.worker.restarting", "N", strconv.Itoa(wk.Status.Restarts))
	case wk.Status != nil:
		state = env.Labels.Or(component.KindHeartbeat, wk.Status.Health)
		if wk.Status.SilentMS > 0 {
			state = env.T("tui.issues.worker.silent", "Health", state,
				"For", env.Duration(time.Duration(wk.Status.SilentMS)*time.Millisecond))
		}
	case wk.Ended:
		state = env.T("tui.issues.worker.ended")
	}
	head := env.T("tui.issues.worker.head", "Attempt", strconv.Itoa(wk.Attempt), "State", state)
	out = append(out, "", " "+env.Styles.Bold.Render(text.Truncate(head, w, tail)))
	if len(wk.Tail) == 0 {
		out = append(out, "   "+env.Styles.Muted.Render(text.Truncate(env.T("tui.issues.worker.quiet"), w-2, tail)))
	}
	for _, l := range wk.Tail {
		out = append(out, "   "+text.Truncate(env.Clean(l), w-2, tail))
	}
	out = append(out, "   "+env.Styles.Muted.Render(text.Truncate(env.T("tui.issues.worker.log_hint"), w-2, tail)))
	return append(out, m.changeLines(wk, w)...)
}

// changeLines are a Worker's change: a heading with the totals, a line
// per file, then the diff itself, coloured as the changes view colours
// it, up to DiffLines lines.
func (m *Model) changeLines(wk *Worker, w int) []string {
	env := m.Env
	tail := env.Tail()
	switch {
	case wk.DiffErr != nil:
		return []string{"", " " + env.Styles.Paint(theme.ToneBad).Apply(text.Truncate(
			env.T("tui.issues.worker.diff_error", "Error", env.Clean(wk.DiffErr.Error())), w, tail))}
	case len(wk.Files) == 0:
		return []string{"", " " + env.Styles.Muted.Render(text.Truncate(env.T("tui.issues.worker.no_change"), w, tail))}
	}
	stats := gitwork.Stats(wk.Files)
	added, removed := 0, 0
	for _, st := range stats {
		added += st.Added
		removed += st.Removed
	}
	out := []string{"", " " + env.Styles.Bold.Render(text.Truncate(env.T("tui.issues.worker.change",
		"N", strconv.Itoa(len(wk.Files)), "Added", strconv.Itoa(added), "Removed", strconv.Itoa(removed)), w, tail))}
	for _, st := range stats {
		counts := env.Styles.Paint(theme.ToneOK).Apply("+"+strconv.Itoa(st.Added)) + " " +
			env.Styles.Paint(theme.ToneBad).Apply("-"+strconv.Itoa(st.Removed))
		out = append(out, "   "+counts+" "+text.Truncate(env.Clean(st.Path), max(w-14, 8), tail))
	}
	shown, more := 0, 0
	add := func(tone theme.Tone, l string) {
		if shown >= DiffLines {
			more++
			return
		}
		shown++
		out = append(out, "   "+env.Styles.Paint(tone).Apply(text.Truncate(env.Clean(l), w-2, tail)))
	}
	for _, f := range wk.Files {
		add(theme.ToneWarn, f.Path())
		if f.Binary {
			add(theme.ToneMuted, env.T("tui.changes.binary"))
		}
		for _, h := range f.Hunks {
			add(theme.ToneSpecial, h.Header)
			for _, l := range h.Lines {
				add(lineTone(l.Kind), string(l.Kind)+l.Text)
			}
		}
	}
	if more > 0 {
		out = append(out, "   "+env.Styles.Muted.Render(text.Truncate(env.T("tui.issues.worker.more", "N", strconv.Itoa(more)), w-2, tail)))
	}
	return out
}

// lineTone colours a diff line by its kind, as the changes view does.
func lineTone(k gitwork.LineKind) theme.Tone {
	switch k {
	case gitwork.LineAdded:
		return theme.ToneOK
	case gitwork.LineRemoved:
		return theme.ToneBad
	case gitwork.LineNoNewEOL:
		return theme.ToneMuted
	}
	return theme.ToneNeutral
}
