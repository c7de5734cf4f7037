package gitwork

import (
	"bytes"
	"strconv"
	"strings"
)

// FileDiff is the change to one file in a unified diff.
type FileDiff struct {
	// OldPath and NewPath name the file before and after; a new file has
	// OldPath "" and a deleted one NewPath "".
	OldPath, NewPath string
	// Binary is set for a binary change (no hunks).
	Binary bool
	// Added and Removed count the lines starting with + and -.
	Added, Removed int
	Hunks          []Hunk
}

// Path is the file's name for display: the new one unless deleted.
func (f FileDiff) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Hunk is one "@@" section of a file's diff.
type Hunk struct {
	OldStart, OldLines, NewStart, NewLines int
	// Header is the whole "@@ ... @@ context" line.
	Header string
	Lines  []Line
}

// LineKind says what a line of a hunk is.
type LineKind byte

// The kinds of a hunk's lines, by their first character.
const (
	LineContext  LineKind = ' '
	LineAdded    LineKind = '+'
	LineRemoved  LineKind = '-'
	LineNoNewEOL LineKind = '\\' // "\ No newline at end of file"
)

// Line is one line of a hunk, without its kind character.
type Line struct {
	Kind LineKind
	Text string
}

// Parse reads the unified diff git prints (diff --git, with extended
// headers). It never fails: lines it does not understand are skipped, so
// a truncated or odd diff still shows what can be shown.
func Parse(data []byte) []FileDiff {
	var files []FileDiff
	var f *FileDiff
	var h *Hunk
	oldLeft, newLeft := 0, 0
	for len(data) > 0 {
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		s := strings.TrimSuffix(string(raw), "\r")
		if h != nil && (oldLeft > 0 || newLeft > 0 || strings.HasPrefix(s, `\`)) {
			if s == "" { // a blank context line whose space was stripped
				s = " "
			}
			k := LineKind(s[0])
			switch k {
			case LineContext:
				oldLeft--
				newLeft--
			case LineRemoved:
				oldLeft--
				f.Removed++
			case LineAdded:
				newLeft--
				f.Added++
			case LineNoNewEOL:
			default:
				h, oldLeft, newLeft = nil, 0, 0
				goto header
			}
			h.Lines = append(h.Lines, Line{Kind: k, Text: s[1:]})
			continue
		}
		h = nil
	header:
		switch {
		case strings.HasPrefix(s, "diff --git "):
			files = append(files, gitHeaderPaths(s[len("diff --git "):]))
			f = &files[len(files)-1]
		case f == nil:
		case strings.HasPrefix(s, "new file mode"):
			f.OldPath = ""
		case strings.HasPrefix(s, "deleted file mode"):
			f.NewPath = ""
		case strings.HasPrefix(s, "rename from "):
			f.OldPath = unquote(s[len("rename from "):])
		case strings.HasPrefix(s, "rename to "):
			f.NewPath = unquote(s[len("rename to "):])
		case strings.HasPrefix(s, "Binary files ") || s == "GIT binary patch":
			f.Binary = true
		case strings.HasPrefix(s, "--- "):
			f.OldPath = diffPath(s[4:], "a/")
		case strings.HasPrefix(s, "+++ "):
			f.NewPath = diffPath(s[4:], "b/")
		case strings.HasPrefix(s, "@@ "):
			if nh, ok := parseHunkHeader(s); ok {
				f.Hunks = append(f.Hunks, nh)
				h = &f.Hunks[len(f.Hunks)-1]
				oldLeft, newLeft = nh.OldLines, nh.NewLines
			}
		}
	}
	return files
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@[ context]".
func parseHunkHeader(s string) (Hunk, bool) {
	rest := s[3:]
	end := strings.Index(rest, " @@")
	if end < 0 {
		return Hunk{}, false
	}
	oldR, newR, ok := strings.Cut(rest[:end], " ")
	if !ok || !strings.HasPrefix(oldR, "-") || !strings.HasPrefix(newR, "+") {
		return Hunk{}, false
	}
	h := Hunk{Header: s}
	if h.OldStart, h.OldLines, ok = parseRange(oldR[1:]); !ok {
		return Hunk{}, false
	}
	if h.NewStart, h.NewLines, ok = parseRange(newR[1:]); !ok {
		return Hunk{}, false
	}
	return h, true
}

// parseRange reads "start[,count]"; count defaults to 1.
func parseRange(s string) (start, count int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	// A hunk's length is bounded by what a diff can hold; a huge count
	// would only make the reader swallow the rest of the input.
	if count > 1<<30 {
		return 0, 0, false
	}
	return start, count, true
}

// gitHeaderPaths reads "a/X b/Y" of a "diff --git" line. The two halves
// are only separable in general when they are equal (the common case
// without a rename), which is what this assumes; ---/+++ and rename
// lines, when present, replace these guesses.
func gitHeaderPaths(s string) FileDiff {
	if strings.HasPrefix(s, `"`) {
		if a, rest, ok := cutQuoted(s); ok {
			return FileDiff{OldPath: strings.TrimPrefix(a, "a/"), NewPath: strings.TrimPrefix(unquote(strings.TrimSpace(rest)), "b/")}
		}
	}
	if len(s)%2 == 1 {
		half := (len(s) - 1) / 2
		a, b := s[:half], s[half+1:]
		if strings.TrimPrefix(a, "a/") == strings.TrimPrefix(b, "b/") {
			p := strings.TrimPrefix(a, "a/")
			return FileDiff{OldPath: p, NewPath: p}
		}
	}
	a, b, _ := strings.Cut(s, " b/")
	p := strings.TrimPrefix(a, "a/")
	if b == "" {
		b = p
	}
	return FileDiff{OldPath: p, NewPath: b}
}

// diffPath reads the path of a ---/+++ line: /dev/null is "", else the
// prefix is dropped (and a tab-separated timestamp, from non-git diffs).
func diffPath(s, prefix string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 && !strings.HasPrefix(s, `"`) {
		s = s[:i]
	}
	s = unquote(s)
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, prefix)
}

// unquote undoes git's C-style quoting of unusual path names.
func unquote(s string) string {
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	if q, _, ok := cutQuoted(s); ok {
		return q
	}
	return s
}

// cutQuoted reads a leading C-quoted string and returns it unquoted and
// what follows it.
func cutQuoted(s string) (string, string, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], true
		case c != '\\' || i+1 >= len(s):
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'a', 'b', 'f', 'r', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'f': 12, 'r': 13, 'v': 11}[e])
		case '0', '1', '2', '3':
			if i+2 < len(s) {
				if n, err := strconv.ParseUint(s[i:i+3], 8, 8); err == nil {
					b.WriteByte(byte(n))
					i += 2
					continue
				}
			}
			b.WriteByte(e)
		default:
			b.WriteByte(e)
		}
	}
	return "", s, false
}

// Stat is a file's line counts, the rows of `daokit diff --stat`.
type Stat struct {
	Path           string
	Added, Removed int
	Binary         bool
}

// Stats returns the per-file counts of files.
func Stats(files []FileDiff) []Stat {
	out := make([]Stat, len(files))
	for i, f := range files {
		out[i] = Stat{Path: f.Path(), Added: f.Added, Removed: f.Removed, Binary: f.Binary}
	}
	return out
}
