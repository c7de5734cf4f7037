package main

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
)

// prose is two words in a row: what a sentence for a person looks like.
// Message ids, flag names, format verbs and key=value data do not match.
var prose = regexp.MustCompile(`[A-Za-z]{2,}[,.:;!?]? +[A-Za-z]{2,}`)

// allowedLiterals are literals that read like prose but are not text for
// a person, each with the reason.
var allowedLiterals = map[string]string{
	"configuration not loaded; no pre-compact hooks": "a log line (the --log file), not the screen",
	"pre-compact hook not added":                     "a log line (the --log file), not the screen",
	"window stopped":                                 "a log line (the --log file), not the screen",
	"worker sim":                                     "a command name",
}

// TestNoProseOutsideTheCatalogs: every text the CLI prints comes from the
// i18n catalogs; a string literal that reads like prose in a command's
// code is a message that escaped translation.
func TestNoProseOutsideTheCatalogs(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			// "open log: %w" wraps an error for the log and for errors.Is;
			// what a person reads is the E_ code and the catalog's text.
			if err != nil || !prose.MatchString(s) || strings.HasSuffix(s, "%w") {
				return true
			}
			if _, ok := allowedLiterals[s]; ok {
				return true
			}
			t.Errorf("%s: prose outside the catalogs: %q", fset.Position(lit.Pos()), s)
			return true
		})
	}
}
