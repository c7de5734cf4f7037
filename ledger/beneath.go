package ledger

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Dir is a folder opened by descriptor. Every file in it is opened
// relative to that descriptor, one path element at a time, with
// O_NOFOLLOW: a symbolic link planted in state/ or artifacts/ (a ledger
// copied from a repository or an archive is enough) is refused instead
// of followed, so the single writer never damages a file outside its
// root, and a folder swapped for a link after the open changes nothing.
// Opens also carry O_NONBLOCK, so a FIFO in place of a ledger file is
// refused at once instead of hanging the reader.
//
// os.Root would keep paths beneath the root but it follows links that
// stay inside it; the ledger wants no links at all.
type Dir struct {
	f    *os.File
	path string
}

// OpenDir opens the folder root/rel. root itself is opened as given (the
// person chose it, links and all); every element of rel is opened
// beneath it without following links. With create, missing elements are
// made (mode 0755 before the umask). rel must be relative and clean: a
// ".." element is refused.
func OpenDir(root, rel string, create bool) (*Dir, error) {
	fd, err := openDirFD(unix.AT_FDCWD, root)
	if err != nil {
		return nil, dirErr(root, err)
	}
	path := root
	for _, elem := range splitRel(rel) {
		if elem == ".." || elem == "" {
			_ = unix.Close(fd)
			return nil, &FileError{File: rel, Path: filepath.Join(root, rel), Err: ErrOutsideRoot}
		}
		path = filepath.Join(path, elem)
		if create {
			if err := unix.Mkdirat(fd, elem, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				_ = unix.Close(fd)
				return nil, dirErr(path, err)
			}
		}
		next, err := openDirFD(fd, elem)
		if errors.Is(err, unix.ENOTDIR) && isLink(fd, elem) {
			// O_DIRECTORY is checked before O_NOFOLLOW: a link to a
			// folder reads as "not a folder".
			err = unix.ELOOP
		}
		_ = unix.Close(fd)
		if err != nil {
			return nil, dirErr(path, err)
		}
		fd = next
	}
	return &Dir{f: os.NewFile(uintptr(fd), path), path: path}, nil
}

func splitRel(rel string) []string {
	if rel == "" || rel == "." {
		return nil
	}
	if filepath.IsAbs(rel) {
		return []string{""}
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

func openDirFD(parent int, name string) (int, error) {
	for {
		fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// isLink reports whether name in the folder parent is a symbolic link.
func isLink(parent int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// dirErr names the folder that could not be opened. A link or a
// non-folder where a folder belongs reads as ErrSymlink or
// ErrExpectedDirectory; a missing one keeps fs.ErrNotExist.
func dirErr(path string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		err = ErrSymlink
	case errors.Is(err, unix.ENOTDIR):
		err = ErrExpectedDirectory
	default:
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &FileError{File: filepath.Base(path), Path: path, Err: err}
}

// Path returns the folder's path as it was opened.
func (d *Dir) Path() string { return d.path }

// Close releases the descriptor.
func (d *Dir) Close() error { return d.f.Close() }

func (d *Dir) fd() int { return int(d.f.Fd()) }

// OpenFile opens the file name (one path element) in d. It never follows
// a symbolic link (the error wraps ErrSymlink), never blocks on a FIFO,
// and refuses anything but a regular file (ErrNotRegular); those errors
// are *FileError values naming the file. A missing file gives an error
// matching fs.ErrNotExist.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	path := filepath.Join(d.path, name)
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return nil, &FileError{File: name, Path: path, Err: ErrOutsideRoot}
	}
	var fd int
	var err error
	for {
		fd, err = unix.Openat(d.fd(), name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, unix.ELOOP):
		return nil, &FileError{File: name, Path: path, Err: ErrSymlink}
	case errors.Is(err, unix.EISDIR), errors.Is(err, unix.ENXIO):
		// A folder opened for writing, a FIFO without a reader opened
		// for writing.
		return nil, &FileError{File: name, Path: path, Err: ErrNotRegular}
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd)
		return nil, &FileError{File: name, Path: path, Err: ErrNotRegular}
	}
	// O_NONBLOCK means nothing for a regular file, but os.NewFile would
	// hand a non-blocking descriptor to the poller; clear it.
	if err := unix.SetNonblock(fd, false); err != nil {
		_ = unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadFile reads the whole regular file name in d, at most limit bytes
// (ErrTooLarge past it); see OpenFile for what is refused.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, limit)
}

// Rename renames from to to inside d. A link at to is replaced, never
// followed.
func (d *Dir) Rename(from, to string) error {
	if err := unix.Renameat(d.fd(), from, d.fd(), to); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(d.path, from), New: filepath.Join(d.path, to), Err: err}
	}
	return nil
}

// Link makes to a second name of the file from inside d; it fails with
// fs.ErrExist when to exists (a link or not) and never follows from.
func (d *Dir) Link(from, to string) error {
	if err := unix.Linkat(d.fd(), from, d.fd(), to, 0); err != nil {
		return &os.LinkError{Op: "link", Old: filepath.Join(d.path, from), New: filepath.Join(d.path, to), Err: err}
	}
	return nil
}

// Remove deletes the file (or link) name in d.
func (d *Dir) Remove(name string) error {
	if err := unix.Unlinkat(d.fd(), name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

// Sync makes the creations, renames and removals inside d durable.
func (d *Dir) Sync() error {
	if err := d.f.Sync(); err != nil {
		return fmt.Errorf("sync dir: %w", err)
	}
	return nil
}

// Names lists the entries of d.
func (d *Dir) Names() ([]string, error) {
	fd, err := openDirFD(d.fd(), ".")
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// OpenFile opens the file at path the way Dir.OpenFile does: its folder
// is opened as given, the file itself is never a link, never a FIFO
// that blocks, always a regular file. Readers that hold a path rather
// than a root use it.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	d, err := OpenDir(filepath.Dir(path), "", false)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.OpenFile(filepath.Base(path), flag, perm)
}

// ReadFile reads the regular file at path (see OpenFile), at most limit
// bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, limit)
}

func readLimited(f *os.File, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: f.Name(), Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &FileError{File: filepath.Base(f.Name()), Path: f.Name(), Err: fmt.Errorf("over %d bytes: %w", limit, ErrTooLarge)}
	}
	return data, nil
}

// notRegular is the error for a file of mode m that is not regular.
func notRegular(m fs.FileMode) error {
	if m&fs.ModeSymlink != 0 {
		return ErrSymlink
	}
	return ErrNotRegular
}

// OpenFile opens state/<name> beneath the root, never following a link
// (state/ itself included); see Dir.OpenFile.
func (l Layout) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	d, err := OpenDir(l.Root, StateDir, false)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.OpenFile(name, flag, perm)
}

// ReadFile reads state/<name> beneath the root (see OpenFile), refusing
// documents larger than a reader holds in memory.
func (l Layout) ReadFile(name string) ([]byte, error) {
	f, err := l.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, MaxDocumentBytes)
}
