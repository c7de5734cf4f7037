// Package docs holds daokit's documentation. Its test keeps the English
// and Chinese documents in step: the same heading structure, a language
// link to each other, and relative links that resolve.
package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPairs returns every (English, Chinese) pair in the repository:
// README.md with README.zh-CN.md, and docs/**/X.en.md with X.zh-CN.md.
func docPairs(t *testing.T) [][2]string {
	t.Helper()
	pairs := [][2]string{{"../README.md", "../README.zh-CN.md"}}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".en.md") {
			pairs = append(pairs, [2]string{path, strings.TrimSuffix(path, ".en.md") + ".zh-CN.md"})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

var (
	fence   = regexp.MustCompile("^\\s*(```|~~~)")
	heading = regexp.MustCompile(`^(#{1,6})\s`)
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

type docShape struct {
	levels []string // "#", "##", … in order
	links  []string
}

func readDoc(t *testing.T, path string) docShape {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var s docShape
	inFence := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			s.levels = append(s.levels, m[1])
		}
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			s.links = append(s.links, m[1])
		}
	}
	return s
}

func TestPairedDocsHaveTheSameHeadings(t *testing.T) {
	for _, p := range docPairs(t) {
		en, zh := readDoc(t, p[0]), readDoc(t, p[1])
		if strings.Join(en.levels, " ") != strings.Join(zh.levels, " ") {
			t.Errorf("%s has headings %v, %s has %v: paired docs keep the same structure", p[0], en.levels, p[1], zh.levels)
		}
		if !contains(en.links, filepath.Base(p[1])) {
			t.Errorf("%s does not link to %s", p[0], filepath.Base(p[1]))
		}
		if !contains(zh.links, filepath.Base(p[0])) {
			t.Errorf("%s does not link to %s", p[1], filepath.Base(p[0]))
		}
	}
}

func TestRelativeLinksResolve(t *testing.T) {
	for _, p := range docPairs(t) {
		for _, doc := range p {
			for _, link := range readDoc(t, doc).links {
				if strings.Contains(link, "://") || strings.HasPrefix(link, "#") || strings.HasPrefix(link, "mailto:") {
					continue
				}
				target := strings.SplitN(link, "#", 2)[0]
				if _, err := os.Stat(filepath.Join(filepath.Dir(doc), target)); err != nil {
					t.Errorf("%s links to %s, which does not exist", doc, link)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestArchitectureNamesEveryPackage keeps the package table of the
// architecture documents whole: every top-level package (a folder of
// non-test Go files, beside cmd and the test-only folders) has a row in
// both languages.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	notPackages := map[string]bool{"cmd": true, "e2e": true, "bench": true, "examples": true, "docs": true, "internal": true}
	for _, doc := range []string{"architecture.en.md", "architecture.zh-CN.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() || notPackages[e.Name()] || !hasGoSource(t, filepath.Join("..", e.Name())) {
				continue
			}
			if !strings.Contains(string(data), "| `"+e.Name()+"` |") {
				t.Errorf("%s: no row for package %s in the package table", doc, e.Name())
			}
		}
	}
}

// hasGoSource reports whether dir holds a Go file that is not a test.
func hasGoSource(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			return true
		}
	}
	return false
}
