package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// FileIdentity is what a writer remembers of one version of a file: its
// size, modification time and content hash. Another writer's save, even
// one of the same length within the same second, changes the hash; a
// rewrite of the same bytes changes the time. Neither tool ever sets a
// file's time back, so a file whose three values match is the version
// that was remembered.
type FileIdentity struct {
	Exists  bool   `json:"exists"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	SHA256  string `json:"sha256"`
}

// same reports whether two identities name the same version.
func (a FileIdentity) same(b FileIdentity) bool {
	if !a.Exists || !b.Exists {
		return a.Exists == b.Exists
	}
	return a.Size == b.Size && a.MtimeNS == b.MtimeNS && a.SHA256 == b.SHA256
}

// String is a short form for warnings and errors.
func (a FileIdentity) String() string {
	if !a.Exists {
		return "absent"
	}
	return fmt.Sprintf("%d bytes, sha256 %.12s", a.Size, a.SHA256)
}

// hashHex is the lowercase hex SHA-256 of data.
func hashHex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// readVersion reads the regular file name in d (at most limit bytes) and
// its identity, both from one open descriptor. A missing file is no
// error: its identity says it does not exist.
func (d *Dir) readVersion(name string, limit int64) ([]byte, FileIdentity, error) {
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, FileIdentity{}, nil
	}
	if err != nil {
		return nil, FileIdentity{}, err
	}
	defer f.Close()
	data, err := readLimited(f, limit)
	if err != nil {
		return nil, FileIdentity{}, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, FileIdentity{}, err
	}
	return data, FileIdentity{Exists: true, Size: int64(len(data)), MtimeNS: st.ModTime().UnixNano(), SHA256: hashHex(data)}, nil
}

// eventsTailWindow is how much of events.jsonl before a commit's offset
// the journal hashes: enough to recognise the log, bounded so that a
// commit on a long history costs the same as on a short one.
const eventsTailWindow = 64 << 10

// eventsIdentity is what a commit remembers of events.jsonl: its size
// (where the commit's lines go), its time, and the hash of the bytes just
// before that point. Appends by another writer after the point are not a
// change of what the commit relies on (events are only ever added); a
// cut, a rewrite or a replaced file is.
type eventsIdentity struct {
	Size       int64  `json:"size"`
	MtimeNS    int64  `json:"mtime_ns"`
	TailFrom   int64  `json:"tail_from"`
	TailSHA256 string `json:"tail_sha256"`
}

// identifyEvents computes f's identity at size (the end of the last good
// append, which may be short of the file's end after a failed write).
func identifyEvents(f *os.File, size int64) (eventsIdentity, error) {
	st, err := f.Stat()
	if err != nil {
		return eventsIdentity{}, err
	}
	from := max(0, size-eventsTailWindow)
	buf := make([]byte, size-from)
	if err := readFull(f, buf, from); err != nil {
		return eventsIdentity{}, err
	}
	return eventsIdentity{Size: size, MtimeNS: st.ModTime().UnixNano(), TailFrom: from, TailSHA256: hashHex(buf)}, nil
}

// unchangedUpTo reports whether f still holds, before id.Size, the bytes
// that id hashed (whatever was appended after them).
func (id eventsIdentity) unchangedUpTo(f *os.File, size int64) (bool, error) {
	if size < id.Size || id.TailFrom > id.Size {
		return false, nil
	}
	buf := make([]byte, id.Size-id.TailFrom)
	if err := readFull(f, buf, id.TailFrom); err != nil {
		return false, err
	}
	return hashHex(buf) == id.TailSHA256, nil
}

// containsAt reports whether f holds want somewhere in [from, size),
// reading at most limit bytes of it.
func containsAt(f *os.File, want []byte, from, size, limit int64) (bool, error) {
	n := min(size-from, limit)
	if n < int64(len(want)) {
		return false, nil
	}
	buf := make([]byte, n)
	if err := readFull(f, buf, from); err != nil {
		return false, err
	}
	return bytes.Contains(buf, want), nil
}
