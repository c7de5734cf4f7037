package worker

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/gitwork"

	"github.com/daokit/daokit/worker/transcript"
)

// EnvWorktree is the environment variable by which the controller tells a
// worker that it runs in a step's own git worktree (its value is the
// worktree's path). The simulated agent edits files for real only then:
// never in a person's own checkout.
const EnvWorktree = "DAOKIT_WORKTREE"

// simEdit makes the simulated agent's edit of file real, under dir: a
// line naming the instruction and the round is appended (the file is made
// first when missing). The same instruction and seed make the same bytes.
func simEdit(dir, file, title string, round int) error {
	full := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	old, err := os.ReadFile(full)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var b strings.Builder
	b.Write(old)
	if len(old) == 0 {
		b.WriteString(simFileHeader(file))
	} else if old[len(old)-1] != '\n' {
		b.WriteByte('\n')
	}
	if strings.HasSuffix(file, ".go") {
		fmt.Fprintf(&b, "\n// %s (simulated edit, round %d)\nvar _ = %q\n", transcript.OneLine(title, 200), round+1, title)
	} else {
		fmt.Fprintf(&b, "- %s (simulated edit, round %d)\n", transcript.OneLine(title, 200), round+1)
	}
	return os.WriteFile(full, []byte(b.String()), 0o644)
}

// simFileHeader is the start of a file the simulated agent creates.
func simFileHeader(file string) string {
	if !strings.HasSuffix(file, ".go") {
		return "# " + path.Base(file) + "\n\n"
	}
	pkg := path.Base(path.Dir(file))
	if strings.HasSuffix(file, "_test.go") || pkg == "server" {
		pkg = strings.TrimSuffix(path.Base(file), "_test.go")
		pkg = strings.TrimSuffix(pkg, ".go")
	}
	if pkg == "main.go" || pkg == "main" || pkg == "server" {
		pkg = "main"
	}
	return "package " + pkg + "\n"
}

// simCommit commits the simulated agent's edits in its worktree.
func simCommit(ctx context.Context, dir, title string) error {
	_, err := gitwork.CommitAll(ctx, dir, "sim: "+title)
	return err
}
