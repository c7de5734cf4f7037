package gitwork

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
)

func TestSetupPermissionIsPerRepository(t *testing.T) {
	ctx := context.Background()
	r := openT(t, gittest.NewRepo(t, map[string]string{"a": "a\n"}))
	other := openT(t, gittest.NewRepo(t, map[string]string{"a": "a\n"}))
	if r.SetupAllowed(ctx) {
		t.Fatal("allowed before the person said so")
	}
	if err := r.AllowSetup(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !r.SetupAllowed(ctx) || other.SetupAllowed(ctx) {
		t.Fatalf("allowed: this %v, other %v; want true, false", r.SetupAllowed(ctx), other.SetupAllowed(ctx))
	}
	if err := r.AllowSetup(ctx, false); err != nil || r.SetupAllowed(ctx) {
		t.Fatalf("withdraw: %v, still %v", err, r.SetupAllowed(ctx))
	}
	if err := r.AllowSetup(ctx, false); err != nil {
		t.Fatalf("withdrawing twice: %v", err)
	}
}

func TestRunSetup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if res, err := RunSetup(ctx, dir, DefaultSetupScript, time.Second); err != nil || res.Ran {
		t.Fatalf("no script: %+v, %v", res, err)
	}
	gittest.WriteFile(t, filepath.Join(dir, DefaultSetupScript), "echo ready > made.txt; echo hello\n")
	res, err := RunSetup(ctx, dir, DefaultSetupScript, 10*time.Second)
	if err != nil || !res.Ran || strings.TrimSpace(string(res.Output)) != "hello" {
		t.Fatalf("RunSetup = %+v, %v", res, err)
	}
	if readFile(t, filepath.Join(dir, "made.txt")) != "ready\n" {
		t.Error("the script did not run in the worktree")
	}
	// A script that hangs, with a child holding the output open.
	gittest.WriteFile(t, filepath.Join(dir, DefaultSetupScript), "sleep 30 & sleep 30\n")
	// Hung, it would take the 30 s of its children; killed, it returns
	// long before.
	done := make(chan error, 1)
	go func() {
		_, err := RunSetup(ctx, dir, DefaultSetupScript, 200*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrSetupTimeout) {
			t.Fatalf("err = %v, want ErrSetupTimeout", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the setup script still runs 20s after its 200ms timeout")
	}
}
