package bundle

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// AnchorSubpath is where a bundle keeps the final-run reports, under its
// root, and the Python tool's default source folder under the repository.
const AnchorSubpath = "docs/reports/final-run"

// Resolve makes raw absolute against root and resolves the symbolic links
// of the part of it that exists, as Python's Path.resolve() (not strict)
// does: summaries name the real folders.
func Resolve(root, raw string) string {
	p := raw
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// display is Python's _display_path: path relative to root when it lies
// under it, else path itself.
func display(path, root string) string {
	if path == root {
		return "."
	}
	if rel, ok := strings.CutPrefix(path, strings.TrimSuffix(root, "/")+"/"); ok {
		return rel
	}
	return path
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// parts splits a slash path into its components as pathlib does: empty
// and "." components dropped, a leading "/" kept as the first part.
func parts(p string) []string {
	var out []string
	if strings.HasPrefix(p, "/") {
		out = append(out, "/")
	}
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// lessParts orders two relative paths as Python sorts Path objects: part
// by part, not as strings ("a/b" before "a-c").
func lessParts(a, b string) bool {
	pa, pb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

// exists is Path.exists(): follows links, false on any error.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// isFile is Path.is_file(): a regular file after following links.
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// isDir is Path.is_dir(): a folder after following links.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// walkEntries lists what Python's Path.rglob(name) yields under dir
// (name "" for "*"): every entry whose name matches, in folders reached
// without following symbolic links to folders, as slash paths relative to
// dir. A folder that does not exist yields nothing, as in Python.
func walkEntries(dir, name string) ([]string, error) {
	if !isDir(dir) {
		return nil, nil
	}
	// WalkDir does not enter a root that is a link; rglob does.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) && p != real {
				return fs.SkipDir // rglob skips what it may not list
			}
			return err
		}
		if p == real {
			return nil
		}
		if name == "" || d.Name() == name {
			rel, _ := filepath.Rel(real, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}
