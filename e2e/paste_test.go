package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestWindowTakesALongPaste: 100 KB pasted into the window in tmux, with
// bracketed paste and without (tmux paste-buffer -r sends the newlines as
// they are, one key each, which once pinned the window for minutes;
// without -r it sends them as CR, the Enter key, which once sent each
// line as a message of its own), is sent whole: the controller records
// each as one instruction.
func TestWindowTakesALongPaste(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("1s"))
	t.Cleanup(func() { stopRootController(t, root) })
	win := openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	for i, flags := range [][]string{{"-p"}, {"-r"}, {}} {
		line := "    if err := run(ctx, \"paste " + string(rune('A'+i)) + "\"); err != nil { return err }\n"
		text := strings.Repeat(line, (100<<10)/len(line))
		file := filepath.Join(t.TempDir(), "paste.txt")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("tmux", "-L", win.socket, "load-buffer", "-b", "p", file).CombinedOutput(); err != nil {
			t.Fatalf("load-buffer: %v %s", err, out)
		}
		args := append([]string{"-L", win.socket, "paste-buffer", "-b", "p", "-t", "0"}, flags...)
		if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
			t.Fatalf("paste-buffer %v: %v %s", flags, err, out)
		}
		if len(flags) > 0 {
			win.waitFor(30*time.Second, "pasted text: ")
			if out, err := exec.Command("tmux", "-L", win.socket, "send-keys", "-t", "0", "Enter").CombinedOutput(); err != nil {
				t.Fatalf("send-keys Enter: %v %s", err, out)
			}
		} // else the paste's last line end, a CR, sends it when the keys stop
		want := strings.TrimSpace(text)
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, ok := findEvent(t, root, func(e ledger.Event) bool {
				return op(e) == "INSTRUCTION_RECEIVED" && e.Payload.String("text") == want
			}); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("paste-buffer %v: the controller never received the %d bytes whole:\n%s", flags, len(want), win.capture())
			}
			time.Sleep(100 * time.Millisecond) // polling the ledger; the condition decides
		}
		if e, ok := findEvent(t, root, func(e ledger.Event) bool {
			got := e.Payload.String("text")
			return op(e) == "INSTRUCTION_RECEIVED" && got != want && strings.Contains(want, got)
		}); ok {
			t.Errorf("paste-buffer %v: part of the paste was sent on its own: %.80q", flags, e.Payload.String("text"))
		}
	}
}
