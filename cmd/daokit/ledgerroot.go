package main

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
)

// errNoLedger marks a root that exists but holds no state/ folder, so
// that callers allowed to create one (--init, a yes) can tell it apart.
var errNoLedger = errors.New("errNoLedger") // never shown: rootProblem carries the words

// rootProblem is a --root that cannot be used, already in words.
type rootProblem struct {
	msg  string
	kind error // errNoLedger or nil
}

func (p *rootProblem) Error() string { return p.msg }

func (p *rootProblem) Unwrap() error { return p.kind }

// requireRoot fails clearly when --root names nothing, instead of
// reporting each state file as missing.
func requireRoot(a *app, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return &rootProblem{msg: a.t("cli.error.root_missing", "Path", dir)}
	}
	if !st.IsDir() {
		return &rootProblem{msg: a.t("cli.error.root_not_dir", "Path", dir)}
	}
	return nil
}

// requireLedger is requireRoot plus a state/ folder: commands that need a
// ledger never create one by accident (a typo in --root, a project
// folder); each says how to make one.
func requireLedger(a *app, dir string) error {
	if err := requireRoot(a, dir); err != nil {
		return err
	}
	st, err := os.Stat(filepath.Join(dir, ledger.StateDir))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &rootProblem{msg: a.t("cli.error.not_a_ledger", "Root", dir), kind: errNoLedger}
	case err != nil || !st.IsDir():
		return &rootProblem{msg: a.t("cli.error.state_not_dir", "Path", filepath.Join(dir, ledger.StateDir))}
	}
	return nil
}

// requireJSONBackend refuses, for a command that writes, a root the
// Python DAOKit keeps on its SQLite backend: daokit writes the JSON files
// only, and the Python tool would read past every one of its writes.
// The message names the setting that selected SQLite and the one that
// selects the filesystem.
func requireJSONBackend(a *app, dir string) error {
	var sq *ledger.SQLiteBackendError
	if err := ledger.CheckBackend(dir); errors.As(err, &sq) {
		return &rootProblem{msg: sqliteMessage(a, sq)}
	}
	return nil
}

// sqliteMessage says why a root on the Python SQLite backend is refused.
func sqliteMessage(a *app, sq *ledger.SQLiteBackendError) string {
	return a.t("cli.error.sqlite_backend", "Root", sq.Root, "Setting", sq.Setting,
		"Env", ledger.PythonBackendEnv, "Settings", ledger.StateDir+"/"+ledger.RuntimeSettingsFile)
}

// ledgerOrInit is requireLedger for send and run: with --init (the person
// asked for it) a missing root or ledger is created, state/ only.
func ledgerOrInit(a *app, dir string, initLedger bool) error {
	err := requireLedger(a, dir)
	if err == nil {
		return requireJSONBackend(a, dir)
	}
	var rp *rootProblem
	if !initLedger || !errors.As(err, &rp) {
		return err
	}
	if _, statErr := os.Stat(dir); statErr == nil && !errors.Is(err, errNoLedger) {
		return err // a file where the root should be, or state/ is a file
	}
	if _, err := ledger.InitState(dir, time.Now()); err != nil {
		return errors.New(a.initProblem(err))
	}
	return nil
}

// askToCreate asks on the terminal whether to create a ledger in dir (the
// window opened in a folder without one) and creates state/ on yes. Any
// other answer, or no answer (input closed), leaves dir untouched.
func (a *app) askToCreate(dir string) (bool, error) {
	a.printf("%s ", a.t("cli.ui.ask_create", "Root", dir))
	line, _ := bufio.NewReader(a.io.in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes", "是":
	default:
		a.println("")
		return false, nil
	}
	if _, err := ledger.InitState(dir, time.Now()); err != nil {
		return false, errors.New(a.initProblem(err))
	}
	return true, nil
}
