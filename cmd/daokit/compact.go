package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

// errCompact is the E_ code of every compact failure.
const errCompact = "E_COMPACT_FAILED"

// newCompactCmd is "daokit compact": it compacts a relay context read from a file or stdin and
// prints the result on stdout; --report prints what changed on stderr, so
// that stdout stays the JSON a pipe expects.
func newCompactCmd(a *app) *cobra.Command {
	var o compactFlags
	c := a.command("compact", "cli.compact.summary", nil)
	takesArgs(c, "cli.compact.args")
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "cli.flag.root")
	f.StringVar(&o.ledgerPath, "ledger", "", "cli.compact.flag.ledger")
	f.BoolVar(&o.report, "report", false, "cli.compact.flag.report")
	f.BoolVar(&o.asJSON, "json", false, "cli.compact.flag.json")
	a.defaultText(f, "ledger", "cli.compact.default.ledger")
	c.RunE = func(c *cobra.Command, files []string) error {
		if len(files) > 1 {
			return a.usage(c, a.t("cli.error.unexpected_args", "Args", strings.Join(files[1:], " ")))
		}
		o.rootSet = c.Flags().Changed("root")
		return a.runCompact(o, files)
	}
	return c
}

// compactFlags are compact's options.
type compactFlags struct {
	root, ledgerPath        string
	report, asJSON, rootSet bool
}

func (a *app) runCompact(o compactFlags, files []string) error {
	file := ""
	if len(files) == 1 {
		file = files[0]
	}
	data, source, err := a.readCompactInput(file)
	if err != nil {
		return err
	}
	known, err := a.compactLedger(o.root, o.rootSet, o.ledgerPath)
	if err != nil {
		return err
	}
	relay, err := compact.Parse(data)
	if err != nil {
		return failf(errCompact, a.compactParseError(err, data, source))
	}
	out, rep := compact.Compact(relay, known)
	encoded := out.Encode()
	if _, err := a.io.out.Write(encoded); err != nil {
		return fmt.Errorf("write compacted context: %w", err)
	}
	switch {
	case o.asJSON:
		return a.writeCompactJSON(rep, len(data), len(encoded))
	case o.report:
		a.writeCompactTable(rep, len(data), len(encoded))
	}
	return nil
}

// readCompactInput reads FILE, or stdin when it is absent or "-".
func (a *app) readCompactInput(name string) ([]byte, string, error) {
	if name == "" || name == "-" {
		data, err := io.ReadAll(a.io.in)
		source := a.t("cli.compact.stdin")
		if err != nil {
			return nil, source, failf(errCompact, a.t("cli.compact.error.read", "Path", source, "Detail", err.Error()))
		}
		return data, source, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, name, failf(errCompact, a.t("cli.compact.error.read", "Path", name, "Detail", pathErrorDetail(err)))
	}
	return data, name, nil
}

// compactLedger loads the facts that fill a context's missing keep set:
// from --ledger, else from <root>/state/pipeline_state.json when --root
// was given. Without either, compaction uses the context alone.
func (a *app) compactLedger(root string, rootSet bool, file string) (compact.Facts, error) {
	if file == "" && !rootSet {
		return compact.Facts{}, nil
	}
	abs, err := absRoot(root)
	if err != nil {
		return compact.Facts{}, failf(errCompact, a.t("cli.compact.error.ledger", "Path", root, "Detail", err.Error()))
	}
	path := ledger.Layout{Root: abs}.Pipeline()
	if file != "" {
		path = file
		if !filepath.IsAbs(path) {
			path = filepath.Join(abs, path)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return compact.Facts{}, failf(errCompact, a.t("cli.compact.error.ledger", "Path", path, "Detail", pathErrorDetail(err)))
	}
	p, err := ledger.ParsePipelineState(data)
	if err != nil {
		return compact.Facts{}, failf(errCompact, a.t("cli.compact.error.ledger", "Path", path, "Detail", err.Error()))
	}
	return compact.PipelineFacts(p), nil
}

// pathErrorDetail drops the path from an *fs.PathError, which the
// message names already.
func pathErrorDetail(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// compactParseError explains why the input is not a relay context, with
// the line and column of a syntax error.
func (a *app) compactParseError(err error, data []byte, source string) string {
	var se *compact.SyntaxError
	if !errors.As(err, &se) {
		return a.t("cli.compact.error.not_object", "Source", source)
	}
	line, col := lineColumn(data, se.Offset)
	where := []any{"Source", source, "Line", line, "Column", col}
	switch se.Kind {
	case compact.SyntaxEnd:
		return a.t("cli.compact.error.syntax_end", where...)
	case compact.SyntaxTrailing:
		return a.t("cli.compact.error.syntax_trailing", where...)
	case compact.SyntaxDepth:
		return a.t("cli.compact.error.syntax_depth", append(where, "Max", compact.MaxDepth)...)
	default:
		return a.t("cli.compact.error.syntax_char", append(where, "Char", fmt.Sprintf("%q", se.Char))...)
	}
}

// lineColumn turns a byte offset into a 1-based line and column (counted
// in characters).
func lineColumn(data []byte, offset int) (int, int) {
	before := data[:min(offset, len(data))]
	line := 1 + bytes.Count(before, []byte("\n"))
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, 1 + utf8.RuneCount(before)
}
