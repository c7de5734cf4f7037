package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/ledger"
)

// openArtifacts opens stdout.log and stderr.log in dir for appending; no
// dir, no files. With a root, dir must lie beneath it and is reached
// without following links (see Spec.ArtifactRoot).
func openArtifacts(root, dir string, closers *closeList) (out, errLog *os.File, err error) {
	if dir == "" {
		return nil, nil, nil
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
		// Read as well as append: a capped log keeps its own tail.
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
