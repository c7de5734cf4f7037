package tui

import (
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component/conversation"
)

// constraintCommand records, lists or removes the person's constraints:
// "/constraint TEXT" keeps TEXT, "/constraint -N" removes the Nth,
// "/constraint" alone lists them. The relay context keeps them (seed 002:
// one of the five facts every compaction keeps); nothing goes to the
// controller, which gets constraints as "Constraint:" lines of an
// instruction.
const constraintCommand = "/constraint"

// constraint handles a typed /constraint.
func (m *Model) constraint(text string) tea.Cmd {
	args := commandArgs(text)
	if args == "" {
		return m.listConstraints()
	}
	if rest, ok := strings.CutPrefix(args, "-"); ok {
		if n, err := strconv.Atoi(rest); err == nil {
			gone, ok, cmd := m.rctx.RemoveConstraint(m.life, n)
			if !ok {
				return m.note(conversation.KindError, "tui.constraint.no_such", "N", strconv.Itoa(n),
					"Count", strconv.Itoa(len(m.rctx.Constraints())))
			}
			return tea.Batch(m.withContext(cmd), m.note(kindSystem, "tui.constraint.removed", "N", strconv.Itoa(n), "Text", m.env.Clean(gone)))
		}
	}
	added, cmd := m.rctx.AddConstraints(m.life, args)
	if added == 0 {
		return tea.Batch(m.withContext(cmd), m.note(kindSystem, "tui.constraint.already", "Text", m.env.Clean(args)))
	}
	n := strconv.Itoa(len(m.rctx.Constraints()))
	return tea.Batch(m.withContext(cmd), m.note(kindSystem, "tui.constraint.added", "N", n, "Text", m.env.Clean(strings.TrimSpace(args))))
}

// listConstraints writes the constraints kept, numbered as /constraint -N
// counts them.
func (m *Model) listConstraints() tea.Cmd {
	cs := m.rctx.Constraints()
	if len(cs) == 0 {
		return m.note(kindSystem, "tui.constraint.none")
	}
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = strconv.Itoa(i+1) + ". " + m.env.Clean(c)
	}
	return m.note(kindSystem, "tui.constraint.list", "List", strings.Join(lines, "; "))
}
