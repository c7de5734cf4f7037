package mirror

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The files of a root's folder this package writes; they match ledger's
// layout (state/events.jsonl and the documents beside it), which this
// package does not import so that a client-only build stays small.
const (
	stateDir   = "state"
	eventsFile = "events.jsonl"
	lockFile   = "mirror.lock"
)

// Folder is the state/ folder of a root being rebuilt from the hub.
type Folder struct {
	dir string
}

// OpenFolder makes root/state when missing and returns it.
func OpenFolder(root string) (*Folder, error) {
	dir := filepath.Join(root, stateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Folder{dir: dir}, nil
}

// EventsPath is the folder's events.jsonl.
func (f *Folder) EventsPath() string { return filepath.Join(f.dir, eventsFile) }

// Lines returns the whole lines of events.jsonl (a torn last line, which
// a crash mid-append leaves, is not one of them) and how many there are.
func (f *Folder) Lines() ([]byte, int, error) {
	data, err := os.ReadFile(f.EventsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	return data, bytes.Count(data, []byte{'\n'}), nil
}

// LastLine returns the last whole line of events.jsonl, newline included,
// and the number of whole lines, reading only the file's end.
func (f *Folder) LastLine() ([]byte, int, error) {
	data, n, err := f.Lines()
	if err != nil || n == 0 {
		return nil, n, err
	}
	start := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	return data[start:], n, nil
}

// Append appends lines to events.jsonl after cutting a torn last line
// off (it is not a line of the stream: the stream's own copy of it comes
// in lines), and syncs them.
func (f *Folder) Append(lines []byte) error {
	file, err := os.OpenFile(f.EventsPath(), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer file.Close()
	end, err := wholeEnd(file)
	if err != nil {
		return err
	}
	if err := file.Truncate(end); err != nil {
		return err
	}
	if _, err := file.WriteAt(lines, end); err != nil {
		return err
	}
	return file.Sync()
}

// wholeEnd is the offset just after the file's last newline.
func wholeEnd(file *os.File) (int64, error) {
	st, err := file.Stat()
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 4096)
	for end := st.Size(); end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := file.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// ReplaceDocument replaces state/<name> with data atomically: a reader
// sees the old bytes or the new, and after a crash the file is one of
// the two. name must be a plain file name (it comes from the hub).
func (f *Folder) ReplaceDocument(name string, data []byte) error {
	if name == "" || name != filepath.Base(name) || name[0] == '.' || name == eventsFile || name == lockFile {
		return fmt.Errorf("document %q: not a document's file name", name)
	}
	tmp, err := os.CreateTemp(f.dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(f.dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return syncDir(f.dir)
}

// ReadDocument reads state/<name>; a missing one is nil, nil.
func (f *Folder) ReadDocument(name string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(f.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
