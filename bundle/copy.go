package bundle

import (
	"context"
	"io"
	"os"
	"path/filepath"
)

// copyTree copies the folder src to dst (which must not exist) the way
// Python's shutil.copytree does by default: links are followed, so the
// bundle holds the files they point to; files keep their mode and
// modification time. Unlike copytree it refuses a dangling link, a link
// back to a folder being copied (copytree recurses until the path is too
// long), and devices or pipes (reading a pipe would block).
func copyTree(ctx context.Context, src, dst string, stack map[string]bool) error {
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return &Error{Kind: NotCopyable, Path: src, Err: err}
	}
	if stack[real] {
		return &Error{Kind: NotCopyable, Path: src}
	}
	stack[real] = true
	defer delete(stack, real)
	fi, err := os.Stat(src)
	if err != nil {
		return &Error{Kind: Unreadable, Path: src, Err: err}
	}
	if err := os.Mkdir(dst, fi.Mode().Perm()|0o700); err != nil {
		return &Error{Kind: Unwritable, Path: dst, Err: err}
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return &Error{Kind: Unreadable, Path: src, Err: err}
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		info, err := os.Stat(from) // follows links, as copytree does
		switch {
		case err != nil && os.IsNotExist(err):
			return &Error{Kind: NotCopyable, Path: from, Err: err}
		case err != nil:
			return &Error{Kind: Unreadable, Path: from, Err: err}
		case info.IsDir():
			if err := copyTree(ctx, from, to, stack); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			if err := copyFile(from, to, info); err != nil {
				return err
			}
		default:
			return &Error{Kind: NotCopyable, Path: from}
		}
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}

// copyFile copies one regular file with its mode and modification time
// (shutil.copy2 keeps both).
func copyFile(from, to string, info os.FileInfo) error {
	in, err := os.Open(from)
	if err != nil {
		return &Error{Kind: Unreadable, Path: from, Err: err}
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm()|0o600)
	if err != nil {
		return &Error{Kind: Unwritable, Path: to, Err: err}
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return &Error{Kind: Unreadable, Path: from, Err: err}
	}
	if err := out.Close(); err != nil {
		return &Error{Kind: Unwritable, Path: to, Err: err}
	}
	if err := os.Chmod(to, info.Mode().Perm()); err != nil {
		return &Error{Kind: Unwritable, Path: to, Err: err}
	}
	if err := os.Chtimes(to, info.ModTime(), info.ModTime()); err != nil {
		return &Error{Kind: Unwritable, Path: to, Err: err}
	}
	return nil
}
