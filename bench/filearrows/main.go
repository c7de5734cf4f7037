// Command filearrows measures how the files of one Go package depend on
// each other, the way the arrows test measures packages: file A has an
// arrow to file B when A uses a name (a function, method, type, field,
// constant or variable) declared in B. A package whose files can be read
// top-down has few arrows that point back up.
//
// The files are ordered with the greedy feedback-arc-set heuristic of
// Eades, Lin and Smyth (1993): repeatedly take every sink to the end of
// the order and every source to its front, and when neither is left,
// move the file with the largest (out-degree − in-degree) to the front.
// An arrow from a file to one before it in that order is a back-arrow;
// their share of all arrows is the figure issue 28 bounds (≤ 15 % for
// controller/). The heuristic breaks ties by file name, so the figure is
// the same on every run.
//
// Usage:
//
//	go run ./bench/filearrows [-tests] [-v] [dir]
//
// dir is the package's folder (default "."); test files are left out
// unless -tests is given. The last line is
//
//	<dir>: <n> files, <e> arrows, <b> back-arrows (<p> %)
//
// and -v prints the order and every back-arrow before it, with the
// names that make it. The package
// is type-checked against the export data `go list -export` builds, so
// it must compile.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	tests := flag.Bool("tests", false, "count the package's _test.go files (package-internal tests only)")
	verbose := flag.Bool("v", false, "print the order and every back-arrow")
	flag.Parse()
	dir := "."
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	g, err := load(dir, *tests)
	if err != nil {
		fmt.Fprintln(os.Stderr, "filearrows:", err)
		os.Exit(1)
	}
	order := g.order()
	back := g.backArrows(order)
	if *verbose {
		for i, f := range order {
			fmt.Printf("%3d %s\n", i+1, f)
		}
		for _, a := range back {
			fmt.Printf("back: %s → %s (%s)\n", a.from, a.to, strings.Join(slices.Sorted(maps.Keys(g.names[a])), " "))
		}
	}
	fmt.Println(summary(dir, g, back))
}

// summary is the one line `make bench` shows.
func summary(dir string, g *graph, back []arrow) string {
	pct := 0.0
	if n := g.arrows(); n > 0 {
		pct = 100 * float64(len(back)) / float64(n)
	}
	return fmt.Sprintf("%s: %d files, %d arrows, %d back-arrows (%.1f %%)", dir, len(g.files), g.arrows(), len(back), pct)
}

// graph is the file-to-file reference graph of one package: out[a][b]
// when file a uses a name declared in file b (a ≠ b).
type graph struct {
	files []string
	out   map[string]map[string]bool
	// names are the names each arrow stands for, by "from → to".
	names map[arrow]map[string]bool
}

type arrow struct{ from, to string }

func (g *graph) arrows() int {
	n := 0
	for _, to := range g.out {
		n += len(to)
	}
	return n
}

// load parses and type-checks the package in dir and collects its
// arrows.
func load(dir string, tests bool) (*graph, error) {
	fset := token.NewFileSet()
	names, err := goFiles(dir, tests)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	exports, err := exportData(dir)
	if err != nil {
		return nil, err
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, err := conf.Check(files[0].Name.Name, fset, files, info)
	if err != nil {
		return nil, err
	}
	g := &graph{files: names, out: map[string]map[string]bool{}, names: map[arrow]map[string]bool{}}
	fileOf := func(pos token.Pos) string { return filepath.Base(fset.Position(pos).Filename) }
	add := func(from token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return
		}
		a, b := fileOf(from), fileOf(obj.Pos())
		if a == b || !slices.Contains(names, b) {
			return
		}
		if g.out[a] == nil {
			g.out[a] = map[string]bool{}
		}
		g.out[a][b] = true
		if g.names[arrow{a, b}] == nil {
			g.names[arrow{a, b}] = map[string]bool{}
		}
		g.names[arrow{a, b}][obj.Name()] = true
	}
	for id, obj := range info.Uses {
		// Local variables and parameters are declared in the file that
		// uses them; only package-level names, methods and fields cross.
		add(id.Pos(), obj)
	}
	for sel, s := range info.Selections {
		// A promoted field or method is reached through the embedded
		// field, which the Uses walk does not see.
		add(sel.Sel.Pos(), s.Obj())
	}
	return g, nil
}

// goFiles lists the package's files as the go command builds them on
// this platform.
func goFiles(dir string, tests bool) ([]string, error) {
	out, err := exec.Command("go", "list", "-f", "{{range .GoFiles}}{{.}} {{end}}{{if .TestGoFiles}}|{{range .TestGoFiles}}{{.}} {{end}}{{end}}", dir).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", dir, err)
	}
	prod, test, _ := strings.Cut(strings.TrimSpace(string(out)), "|")
	names := strings.Fields(prod)
	if tests {
		names = append(names, strings.Fields(test)...)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	return names, nil
}

// exportData maps every dependency of dir (and of its tests) to the
// export data the go command built for it.
func exportData(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-test", "-json=ImportPath,Export", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export %s: %w: %s", dir, err, stderr.String())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
	}
	return exports, nil
}

// order is the Eades–Lin–Smyth ordering of the files: sources first,
// sinks last, and in between, greedily, the file with the most arrows
// out beyond the arrows in.
func (g *graph) order() []string {
	left := map[string]bool{}
	for _, f := range g.files {
		left[f] = true
	}
	in, out := map[string]int{}, map[string]int{}
	for a, to := range g.out {
		for b := range to {
			out[a]++
			in[b]++
		}
	}
	remove := func(f string) {
		delete(left, f)
		for b := range g.out[f] {
			if left[b] {
				in[b]--
			}
		}
		for a := range left {
			if g.out[a][f] {
				out[a]--
			}
		}
	}
	sorted := func() []string {
		names := make([]string, 0, len(left))
		for f := range left {
			names = append(names, f)
		}
		slices.Sort(names)
		return names
	}
	var front, back []string
	for len(left) > 0 {
		moved := true
		for moved {
			moved = false
			for _, f := range sorted() {
				if left[f] && out[f] == 0 {
					back = append(back, f)
					remove(f)
					moved = true
				}
			}
			for _, f := range sorted() {
				if left[f] && in[f] == 0 {
					front = append(front, f)
					remove(f)
					moved = true
				}
			}
		}
		if len(left) == 0 {
			break
		}
		best, delta := "", 0
		for _, f := range sorted() {
			if d := out[f] - in[f]; best == "" || d > delta {
				best, delta = f, d
			}
		}
		front = append(front, best)
		remove(best)
	}
	slices.Reverse(back)
	return append(front, back...)
}

// backArrows are the arrows that point to a file earlier in order.
func (g *graph) backArrows(order []string) []arrow {
	at := map[string]int{}
	for i, f := range order {
		at[f] = i
	}
	var back []arrow
	for _, a := range order {
		for _, b := range slices.Sorted(maps.Keys(g.out[a])) {
			if at[b] < at[a] {
				back = append(back, arrow{a, b})
			}
		}
	}
	return back
}
