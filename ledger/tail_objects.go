package ledger

import (
	"bytes"
	"fmt"
	"os"
	"slices"
)

// ObjectTail is the end of a JSONL log of any objects (for example the
// Python tool's snapshots.jsonl).
type ObjectTail struct {
	// Objects are the last objects, oldest first.
	Objects []Object
	// Skipped counts lines that were not JSON objects (or too long).
	Skipped int
}

// TailObjects returns the last n JSON objects of the JSONL file at path,
// reading backwards from the end line by line, so that its cost depends on
// n and the line lengths, never on the size of the file. A torn last line
// is ignored; a missing file is a *FileError wrapping ErrMissing.
func TailObjects(path string, n int) (ObjectTail, error) {
	var res ObjectTail
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return res, fileErr(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return res, fileErr(path, err)
	}
	end, err := lineStartChunk(f, st.Size(), scanChunk)
	if err != nil {
		return res, fileErr(path, fmt.Errorf("tail: %w", err))
	}
	for len(res.Objects) < n && end > 0 {
		start, err := lineStartChunk(f, end-1, scanChunk)
		if err != nil {
			return res, fileErr(path, fmt.Errorf("tail: %w", err))
		}
		length := end - 1 - start
		end = start
		if length > MaxReadLineBytes {
			res.Skipped++
			continue
		}
		line := make([]byte, length)
		if err := readFull(f, line, start); err != nil {
			return res, fileErr(path, fmt.Errorf("tail: %w", err))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		obj, err := decodeObject(line)
		if err != nil {
			res.Skipped++
			continue
		}
		res.Objects = append(res.Objects, obj)
	}
	slices.Reverse(res.Objects)
	return res, nil
}
