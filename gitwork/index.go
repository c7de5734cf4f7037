package gitwork

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The answers of worktreeState, which reads a worktree's git index and
// its folder without starting git.
type treeState int

const (
	// treeClean: every tracked file matches the index's record of it and
	// no other file is there.
	treeClean treeState = iota
	// treeDirty: a file that is not tracked (ignored or not: nothing
	// holds it once the folder is gone), a tracked file missing, or one
	// whose size changed.
	treeDirty
	// treeUnsure: a tracked file's time changed with its size, or changed
	// too close to the index's own write for its record to be trusted, or
	// the index is in a form this reader does not know: git must decide.
	treeUnsure
)

// worktreeState looks at the worktree at path the way `git status` does
// for a clean tree, in process: a listing of a kept step costs no git
// process. Exclude files are not read at all: an ignored file is work
// too, so a step (or an agent writing `*` into the repository's shared
// info/exclude) cannot hide files from it.
func worktreeState(path string) treeState {
	gitDir, err := worktreeGitDir(path)
	if err != nil {
		return treeUnsure
	}
	state, tracked := trackedState(path, gitDir)
	if state == treeDirty {
		return treeDirty
	}
	if tracked != nil && untracked(path, tracked) {
		return treeDirty
	}
	return state
}

// trackedState compares the tracked files of the worktree at path with
// its index (in gitDir) and returns the names the index tracks (nil when
// the index could not be read: the state is then treeUnsure).
func trackedState(path, gitDir string) (treeState, map[string]bool) {
	indexPath := filepath.Join(gitDir, "index")
	st, err := os.Stat(indexPath)
	if err != nil {
		return treeUnsure, nil
	}
	data, err := os.ReadFile(indexPath)
	if err != nil {
		return treeUnsure, nil
	}
	entries, ok := readIndex(data, hashSize(gitDir))
	if !ok {
		return treeUnsure, nil
	}
	state := treeClean
	tracked := make(map[string]bool, len(entries))
	for _, e := range entries {
		tracked[e.name] = true
		switch s := e.compare(path, st.ModTime()); s {
		case treeDirty:
			return treeDirty, tracked
		case treeUnsure:
			state = treeUnsure
		}
	}
	return state, tracked
}

// worktreeGitDir reads the ".git" file of a linked worktree ("gitdir:
// <path>"), or returns the ".git" folder of a main one.
func worktreeGitDir(path string) (string, error) {
	dotgit := filepath.Join(path, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return dotgit, nil
	}
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return "", err
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return "", errors.New("gitwork: not a gitdir file")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(path, dir)
	}
	return dir, nil
}

// hashSize is the object id length of the repository: 32 bytes in a
// SHA-256 repository, else 20.
func hashSize(gitDir string) int {
	common := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	if cfg, err := os.ReadFile(filepath.Join(common, "config")); err == nil && bytes.Contains(bytes.ToLower(cfg), []byte("sha256")) {
		return 32
	}
	return 20
}

// indexEntry is what the index records of a tracked file.
type indexEntry struct {
	name                   string
	mtimeSec, mtimeNsec    uint32
	mode, size             uint32
	stage                  uint16
	assumeValid, gitlink   bool
	skipWorktree, intentTo bool
}

// Modes of index entries (the file type bits).
const (
	modeTypeMask = 0o170000
	modeGitlink  = 0o160000
	modeSymlink  = 0o120000
)

// readIndex reads the entries of a git index file (versions 2 to 4).
// ok is false for anything else, or a split index (its entries are in
// another file): the caller asks git then.
func readIndex(data []byte, hash int) ([]indexEntry, bool) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, false
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	fixed := 40 + hash + 2 // stat data, object id, flags
	entries := make([]indexEntry, 0, n)
	pos, prev := 12, ""
	for range n {
		if pos+fixed > len(data) {
			return nil, false
		}
		b := data[pos:]
		e := indexEntry{
			mtimeSec: binary.BigEndian.Uint32(b[8:]), mtimeNsec: binary.BigEndian.Uint32(b[12:]),
			mode: binary.BigEndian.Uint32(b[24:]), size: binary.BigEndian.Uint32(b[36:]),
		}
		flags := binary.BigEndian.Uint16(b[40+hash:])
		e.assumeValid = flags&0x8000 != 0
		e.stage = (flags >> 12) & 3
		e.gitlink = e.mode&modeTypeMask == modeGitlink
		off := fixed
		if flags&0x4000 != 0 {
			if version < 3 || pos+off+2 > len(data) {
				return nil, false
			}
			ext := binary.BigEndian.Uint16(b[off:])
			e.skipWorktree, e.intentTo = ext&0x4000 != 0, ext&0x2000 != 0
			off += 2
		}
		if version == 4 {
			strip, k := binary.Uvarint(b[off:])
			if k <= 0 || int(strip) > len(prev) {
				return nil, false
			}
			off += k
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, false
			}
			e.name = prev[:len(prev)-int(strip)] + string(b[off:off+end])
			pos += off + end + 1
		} else {
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, false
			}
			e.name = string(b[off : off+end])
			// Entries are padded with NULs to a multiple of 8 bytes.
			pos += (off + end + 8) &^ 7
		}
		prev = e.name
		entries = append(entries, e)
	}
	// A split index keeps its entries in a shared file ("link").
	if pos+4 <= len(data) && string(data[pos:pos+4]) == "link" {
		return nil, false
	}
	return entries, true
}

// compare says whether the file of e under top still is what the index
// recorded. indexTime is when the index was written: a file changed at
// that time or after may have changed after git looked at it.
func (e indexEntry) compare(top string, indexTime time.Time) treeState {
	if e.stage != 0 || e.intentTo {
		return treeDirty // a conflict, or a file added with -N
	}
	if e.skipWorktree {
		// Sparse checkout: not on disk by design; git decides.
		return treeUnsure
	}
	fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(e.name)))
	if err != nil {
		return treeDirty
	}
	if e.gitlink {
		return treeClean // a submodule: its own repository holds its work
	}
	if e.mode&modeTypeMask == modeSymlink {
		if fi.Mode()&fs.ModeSymlink == 0 {
			return treeDirty
		}
	} else if !fi.Mode().IsRegular() {
		return treeDirty
	} else if (fi.Mode()&0o100 != 0) != (e.mode&0o100 != 0) {
		return treeUnsure // a mode change, unless core.fileMode is off
	}
	if uint32(fi.Size()) != e.size {
		if e.size == 0 {
			return treeUnsure // git smudges racily clean entries to size 0
		}
		return treeDirty
	}
	mt := fi.ModTime()
	if uint32(mt.Unix()) != e.mtimeSec || uint32(mt.Nanosecond()) != e.mtimeNsec || !mt.Before(indexTime) {
		return treeUnsure
	}
	return treeClean
}

// untracked reports whether the folder at top holds a file or link that
// the index does not track. Folders that hold nothing are not work; a
// folder with a ".git" of its own (a nested repository) is.
func untracked(top string, tracked map[string]bool) bool {
	dirs := map[string]bool{}
	for name := range tracked {
		for d := filepath.ToSlash(filepath.Dir(name)); d != "." && !dirs[d]; d = filepath.ToSlash(filepath.Dir(d)) {
			dirs[d] = true
		}
	}
	found := false
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			found = true
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(top, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == ".git":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			if tracked[rel] {
				return filepath.SkipDir // a submodule
			}
			if !dirs[rel] {
				// No tracked file below: anything in it is untracked.
				if hasFile(p) {
					found = true
					return filepath.SkipAll
				}
				return filepath.SkipDir
			}
			return nil
		case !tracked[rel]:
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// hasFile reports whether the folder at dir holds anything but folders.
func hasFile(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
