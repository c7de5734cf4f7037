package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/ledger"
)

// openArtifacts opens stdout.log and stderr.log in dir for appending:
// the worker writes its output into them directly. With a root, dir must
// lie beneath it and is reached without following links (see
// Spec.ArtifactRoot). No dir, the output goes through two files that have
// no name: the worker's output takes the same way whether it is kept or
// not.
func openArtifacts(root, dir string, closers *closeList) (out, errLog *os.File, err error) {
	if dir == "" {
		return unnamedLogs(closers)
	}
	var folder *ledger.Dir
	if root == "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		folder, err = ledger.OpenDir(dir, "", false)
	} else {
		rel, rerr := filepath.Rel(root, dir)
		if rerr != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			return nil, nil, fmt.Errorf("%s: %w", dir, ledger.ErrOutsideRoot)
		}
		folder, err = ledger.OpenDir(root, rel, true)
	}
	if err != nil {
		return nil, nil, err
	}
	defer folder.Close()
	open := func(name string) (*os.File, error) {
		// Read as well as append: the worker appends, and the same open
		// file is followed (see follow).
		f, err := folder.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
		if err == nil {
			closers.add(f)
		}
		return f, err
	}
	if out, err = open(StdoutLog); err != nil {
		return nil, nil, err
	}
	if errLog, err = open(StderrLog); err != nil {
		return nil, nil, err
	}
	return out, errLog, nil
}

// The artifact file names inside Spec.ArtifactDir.
const (
	StdoutLog = "stdout.log"
	StderrLog = "stderr.log"
)

// closeList closes what a failed Start had opened.
type closeList []*os.File

func (c *closeList) add(fs ...*os.File) { *c = append(*c, fs...) }

func (c *closeList) close() {
	for _, f := range *c {
		_ = f.Close()
	}
}

// unnamedLogs opens two files in the temporary folder and unlinks them
// at once: nothing is left behind, whatever becomes of the process.
func unnamedLogs(closers *closeList) (out, errLog *os.File, err error) {
	open := func() (*os.File, error) {
		f, err := os.CreateTemp("", "daokit-worker-*.log")
		if err != nil {
			return nil, err
		}
		closers.add(f)
		return f, os.Remove(f.Name())
	}
	if out, err = open(); err != nil {
		return nil, nil, err
	}
	if errLog, err = open(); err != nil {
		return nil, nil, err
	}
	return out, errLog, nil
}
