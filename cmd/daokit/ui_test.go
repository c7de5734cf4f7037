package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
)

func uiRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if _, err := ledger.Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestProbeFindsNoControllerInAFreshRoot(t *testing.T) {
	t.Parallel()
	c := &processControllers{root: uiRoot(t)}
	p, err := c.Probe(context.Background())
	if err != nil || p.Live || p.PID != 0 || p.Socket {
		t.Fatalf("Probe of a fresh root: %+v, %v", p, err)
	}
}

func TestProbeReadsTheLockHolder(t *testing.T) {
	t.Parallel()
	root := uiRoot(t)
	lock := filepath.Join(root, "state", ledger.LockFile)
	if err := os.WriteFile(lock, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &processControllers{root: root}
	if p, err := c.Probe(context.Background()); err != nil || !p.Live || p.PID != os.Getpid() {
		t.Fatalf("Probe with a live holder: %+v, %v", p, err)
	}
	// A holder that died (SIGKILL leaves its pid in the file).
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	if err := os.WriteFile(lock, []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Probe(context.Background()); p.Live {
		t.Fatalf("Probe calls the dead pid %d live", p.PID)
	}
}

// TestStartRefusesBesideALiveHolder: the window, the dashboard and the
// CLI start a controller through Start; while a live process holds the
// root's lock none is started (the child would fight or fence it), and
// the refusal names the holder in the reader's language.
func TestStartRefusesBesideALiveHolder(t *testing.T) {
	t.Parallel()
	root := uiRoot(t)
	lock := filepath.Join(root, "state", ledger.LockFile)
	if err := os.WriteFile(lock, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(t.TempDir(), "started")
	self := fakeDaokit(t, "touch "+started)
	for _, lang := range []string{"en", "zh-CN"} {
		c := &processControllers{self: self, root: root, loc: i18n.MustNew(lang)}
		proc, err := c.Start(context.Background())
		var busy *holderLiveError
		if !errors.As(err, &busy) || proc != nil || busy.pid != os.Getpid() {
			t.Fatalf("%s: Start beside a live holder: %v, %v", lang, proc, err)
		}
		want := map[string]string{"en": "is alive but did not answer in time", "zh-CN": "仍存活，但未及时应答"}[lang]
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
			t.Errorf("%s: %q", lang, err)
		}
	}
	if _, err := os.Stat(started); err == nil {
		t.Fatal("a controller was started beside the live holder")
	}
}

// fakeDaokit writes a script standing in for the daokit binary.
func fakeDaokit(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "daokit")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStartedControllerRunsInItsOwnSessionAndReportsItsExit(t *testing.T) {
	t.Parallel()
	self := fakeDaokit(t, `[ "$1" = controller ] || exit 9
read line
echo "daokit: unknown command \"controller\"" >&2
exit 3`)
	c := &processControllers{self: self, root: uiRoot(t), loc: i18n.MustNew("en")}
	proc, err := c.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := unix.Getsid(0)
	if sid, err := unix.Getsid(proc.PID()); err == nil && sid == mine {
		t.Errorf("child shares the window's session %d", sid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	exit, err := proc.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if exit.Code != 3 || !strings.Contains(exit.Output, `unknown command "controller"`) {
		t.Fatalf("exit %+v", exit)
	}
}

func TestWaitReturnsWhenTheWindowCloses(t *testing.T) {
	t.Parallel()
	self := fakeDaokit(t, "exec sleep 30")
	c := &processControllers{self: self, root: uiRoot(t), loc: i18n.MustNew("en")}
	proc, err := c.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Kill(proc.PID(), unix.SIGKILL); unix.Wait4(proc.PID(), nil, 0, nil) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := proc.Wait(ctx); err == nil {
		t.Fatal("Wait did not return the context's error")
	}
	if unix.Kill(proc.PID(), 0) != nil {
		t.Fatal("closing the window stopped the controller")
	}
}

func TestWindowCommandsAreRegistered(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		r := runCLI(t, nil, "--help", "--lang", lang)
		for _, name := range []string{"ui ", "watch "} {
			if !strings.Contains(r.stdout, "  "+name) {
				t.Errorf("%s: %q missing from help:\n%s", lang, name, r.stdout)
			}
		}
	}
	r := runCLI(t, nil, "watch", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--root") || strings.Contains(r.stdout, "--no-start") {
		t.Errorf("watch --help: code %d\n%s", r.code, r.stdout)
	}
	r = runCLI(t, nil, "ui", "--bogus")
	if r.code != exitUsage {
		t.Errorf("ui --bogus: code %d, want %d", r.code, exitUsage)
	}
}
