package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	catalogID  = regexp.MustCompile(`^tui\.[A-Za-z0-9_.]*$`)
	lowerIdent = regexp.MustCompile(`^[a-z0-9_:./\-]+$`)
	upperIdent = regexp.MustCompile(`^[A-Z0-9_]+[:.]?$`)
	keyName    = regexp.MustCompile(`^[A-Za-z0-9?]+([+/][A-Za-z0-9?]+)+$`)
)

// literalExceptions are string literals with letters that are not text a
// person reads in the window, with the reason.
var literalExceptions = map[string]string{
	`"?CSI%+v?"`:                   "Bubble Tea's rendering of an unknown CSI sequence, matched in Filter",
	`"13;2u"`:                      "a terminal escape sequence",
	`"27;2;13~"`:                   "a terminal escape sequence",
	`"relay: "`:                    "live.Error text for logs; the window shows the translated code",
	`"daokit-controller-*"`:        "temp file pattern",
	`"\ue000"`:                     "paint sentinel",
	`"timedOut"`:                   "a stored run state (the controller's spelling)",
	`"pre-compact hook %s: %s %s"`: "HookError's text for logs; the window shows tui.banner.hook",
	`"约束："`:                        "input syntax the relay context reads in an instruction (seed 002), in every language",
	`"约束:"`:                        "input syntax the relay context reads in an instruction (seed 002), in every language",
}

// TestNoUserTextOutsideCatalogs scans the window's code for string
// literals that look like prose: every word a person reads must come
// from the catalogs (i18n/locales/tui.*.toml). Allowed are catalog ids,
// punctuation and glyphs, machine identifiers (stored values such as
// ACTIVE, JSON keys such as reason_code, lifecycle keys such as
// route:next_action), key names in the key map, and error texts made
// with fmt.Errorf or errors.New (for logs; the window labels errors by
// code). A lowercase single word cannot be told from an identifier, so
// it passes; anything with a space or a capitalised word does not.
func TestNoUserTextOutsideCatalogs(t *testing.T) {
	fset, files := parseCode(t)
	for _, cf := range files {
		f := cf.file
		skip := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				skip[n.Path] = true
			case *ast.Field:
				if n.Tag != nil {
					skip[n.Tag] = true
				}
			case *ast.CallExpr:
				if first, ok := templateArgs(n); ok {
					// T(id, "Name", value, ...), note(kind, id, "Name",
					// value, ...) and the like: the names are template
					// variables, not text.
					for i := first; i < len(n.Args); i += 2 {
						if l, ok := n.Args[i].(*ast.BasicLit); ok {
							skip[l] = true
						}
					}
				}
				if exempt(n) {
					ast.Inspect(n, func(c ast.Node) bool {
						if l, ok := c.(*ast.BasicLit); ok {
							skip[l] = true
						}
						return true
					})
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			l, ok := n.(*ast.BasicLit)
			if !ok || l.Kind != token.STRING || skip[l] {
				return true
			}
			if _, ok := literalExceptions[l.Value]; ok {
				return true
			}
			s, err := strconv.Unquote(l.Value)
			if err != nil || allowedLiteral(s) {
				return true
			}
			t.Errorf("%s: string literal %s looks like text a person reads; put it in the catalogs", fset.Position(l.Pos()), l.Value)
			return true
		})
	}
}

// templateArgs returns where the template variable names of a catalog
// call start: T(id, ...), the root's note(kind, id, ...), the
// conversation's catalogEntry(kind, id, ...) and labels(name, kind, ...).
func templateArgs(c *ast.CallExpr) (int, bool) {
	name := ""
	switch f := c.Fun.(type) {
	case *ast.SelectorExpr:
		name = f.Sel.Name
	case *ast.Ident:
		name = f.Name
	}
	switch name {
	case "T":
		return 1, true
	case "note", "catalogEntry":
		return 2, true
	case "labels":
		return 0, true
	}
	return 0, false
}

// codeFile is one parsed file of the window's code.
type codeFile struct {
	path string
	file *ast.File
}

// parseCode parses the window's code: the non-test Go files of this
// folder and the folders below it. The tests that check what the code
// may say or call read the same files.
func parseCode(t *testing.T) (*token.FileSet, []codeFile) {
	t.Helper()
	fset := token.NewFileSet()
	var files []codeFile
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, codeFile{path: path, file: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fset, files
}

// exempt reports calls whose literals are not shown in the window: error
// constructors, loggers, key bindings.
func exempt(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	name := sel.Sel.Name
	if x, ok := sel.X.(*ast.Ident); ok {
		switch x.Name + "." + name {
		case "fmt.Errorf", "errors.New", "key.WithKeys", "key.NewBinding", "key.WithHelp", "regexp.MustCompile":
			return true
		}
	}
	switch name {
	case "Debug", "Info", "Warn", "Error":
		return true // slog
	}
	return false
}

func allowedLiteral(s string) bool {
	hasLetter := false
	for _, r := range s {
		if unicode.IsLetter(r) {
			hasLetter = true
			break
		}
	}
	switch {
	case !hasLetter, strings.HasPrefix(s, "\x1b"): // a terminal control sequence
		return true
	case catalogID.MatchString(s), lowerIdent.MatchString(s), upperIdent.MatchString(s), keyName.MatchString(s):
		return true
	}
	return false
}
