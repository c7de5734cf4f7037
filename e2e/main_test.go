// Package e2e tests daokit as a person uses it: the real binary, real
// controller and worker processes, SIGKILL and SIGSTOP. The drills run in
// a short form in `make test` and in full with `make drill`
// (DAOKIT_DRILL=full). The TestReal* tests drive the real Claude Code and
// Codex CLIs pinned in e2e/agents against a scripted model on 127.0.0.1
// (agents_test.go; `make test-agents` runs them alone).
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// daokit is the binary under test, built once by TestMain.
var daokit string

func TestMain(m *testing.M) {
	if spec := os.Getenv(deepEnv); spec != "" {
		os.Exit(deepStep(spec))
	}
	if spec := os.Getenv(attackEnv); spec != "" {
		os.Exit(attackStep(spec))
	}
	if spec := os.Getenv(holderEnv); spec != "" {
		sock, n, _ := strings.Cut(spec, ",")
		count, _ := strconv.Atoi(n)
		os.Exit(holdConnections(sock, count))
	}
	dir, err := os.MkdirTemp("", "daokit-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	daokit = filepath.Join(dir, "daokit")
	// Built as make build builds them: without cgo, static binaries,
	// which also start faster than ones the dynamic loader must link;
	// daokit-hub beside daokit, where `daokit hub` looks for it first.
	build := exec.Command("go", "build", "-o", dir, "github.com/daokit/daokit/cmd/daokit", "github.com/daokit/daokit/cmd/daokit-hub")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build daokit and daokit-hub:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// full reports whether the drills run in their long form.
func full() bool { return os.Getenv("DAOKIT_DRILL") == "full" }
