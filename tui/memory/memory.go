// Package memory is what the window remembers of a root between its
// runs: the conversation (bounded) and the input history, in a file of
// the window's own (never part of the ledger), replaced atomically. The
// root loads it at start and saves it in commands.
package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/input"
)

// FileName is the window's memory in <root>/state/.
const FileName = "window.json"

// version is the file's format; a file of another version is ignored.
const version = 1

// Snapshot is the file's content.
type Snapshot struct {
	Version      int                  `json:"version"`
	Conversation []conversation.Saved `json:"conversation"`
	History      []string             `json:"history"`
}

// ErrVersion is a memory file written by another version of the window.
var ErrVersion = errors.New("window memory: unknown version")

// Encode renders s for the file.
func Encode(conv []conversation.Saved, history []string) []byte {
	data, _ := json.Marshal(Snapshot{Version: version, Conversation: conv, History: history})
	return data
}

// Parse reads a memory file, keeping at most conversation.MaxSaved
// entries and input.MaxHistory messages (the newest).
func Parse(data []byte) (Snapshot, error) {
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return Snapshot{}, fmt.Errorf("window memory: %w", err)
	}
	if s.Version != version {
		return Snapshot{}, ErrVersion
	}
	if n := len(s.Conversation); n > conversation.MaxSaved {
		s.Conversation = s.Conversation[n-conversation.MaxSaved:]
	}
	if n := len(s.History); n > input.MaxHistory {
		s.History = s.History[n-input.MaxHistory:]
	}
	return s, nil
}

// Store keeps the memory between runs (relayctx.FileStore is one).
type Store interface {
	// Load returns the saved bytes, or nil and no error when there are
	// none yet.
	Load(ctx context.Context) ([]byte, error)
	// Save replaces the saved bytes atomically.
	Save(ctx context.Context, data []byte) error
}

// Msg is the family of messages this package's commands return; the
// root hands every Msg to its memory handling.
type Msg interface{ memoryMsg() }

// LoadedMsg carries the memory read at start.
type LoadedMsg struct {
	Snapshot Snapshot
	Err      error
}

// SavedMsg says whether the memory reached its file.
type SavedMsg struct {
	Err error
}

func (LoadedMsg) memoryMsg() {}
func (SavedMsg) memoryMsg()  {}

var (
	_ Msg = LoadedMsg{}
	_ Msg = SavedMsg{}
)

// Load reads the memory in a command. A missing file is an empty memory.
func Load(ctx context.Context, s Store) tea.Cmd {
	return func() tea.Msg {
		data, err := s.Load(ctx)
		if err != nil || len(data) == 0 {
			return LoadedMsg{Err: err}
		}
		snap, err := Parse(data)
		return LoadedMsg{Snapshot: snap, Err: err}
	}
}

// Save writes data in a command.
func Save(ctx context.Context, s Store, data []byte) tea.Cmd {
	return func() tea.Msg { return SavedMsg{Err: s.Save(ctx, data)} }
}
