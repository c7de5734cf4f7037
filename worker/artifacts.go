package worker

import (
	"os"
	"path/filepath"
)

// openArtifacts opens stdout.log and stderr.log in dir for appending; no
// dir, no files.
func openArtifacts(dir string, closers *closeList) (out, errLog *os.File, err error) {
	if dir == "" {
		return nil, nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	open := func(name string) (*os.File, error) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
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
