package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/ledger/ledgertest"
)

// dashboardProc is a `daokit dashboard` child of the test.
type dashboardProc struct {
	*printingProc
	url string
}

var dashboardURL = regexp.MustCompile(`http://\S+`)

// startDashboard runs `daokit dashboard --port 0` on root and returns
// the address it printed; the cleanup kills it.
func startDashboard(t *testing.T, root, lang string, args ...string) *dashboardProc {
	t.Helper()
	cmd := exec.Command(daokit, append([]string{"dashboard", "--root", root, "--port", "0", "--lang", lang}, args...)...)
	cmd.Env = os.Environ()
	p := &dashboardProc{}
	p.printingProc = startPrinting(t, cmd, "daokit dashboard", func(line string) bool {
		p.url = dashboardURL.FindString(line)
		return p.url != ""
	})
	return p
}

// stop interrupts the dashboard as Ctrl-C does and checks it ends well.
func (p *dashboardProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("daokit dashboard did not stop within 10s of SIGINT")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("daokit dashboard exit code %d after SIGINT, want 0", code)
	}
}

// TestDashboardInBrowser: the dashboard in headless Chromium, in each
// language. The page loads with its labels in that language; an event
// another writer appends to the ledger appears without a reload (the
// stream); an instruction typed in the page reaches the controller,
// which records it in the ledger, and the page shows that event too.
// A read-only dashboard has no input and refuses a POST.
func TestDashboardInBrowser(t *testing.T) {
	b := openBrowser(t)
	root := newRoot(t, simConfig("50ms"))
	ctl := startController(t, root)
	defer ctl.stop()

	for _, lang := range i18n.Supported() {
		t.Run(lang, func(t *testing.T) {
			b := b.in(t)
			l := i18n.MustNew(lang)
			d := startDashboard(t, root, lang)
			b.open(d.url)
			if got, want := b.eval(`return document.title`), l.T("dashboard.title"); got != want {
				t.Fatalf("title %q, want %q", got, want)
			}
			if got, want := b.text("#pipeline h2"), l.T("dashboard.pane.pipeline"); got != want {
				t.Errorf("pipeline heading %q, want %q", got, want)
			}
			if got, want := b.text("#runs h2"), l.T("dashboard.pane.runs"); got != want {
				t.Errorf("runs heading %q, want %q", got, want)
			}
			live := l.T("dashboard.conn.live")
			b.waitText("#conn", 10*time.Second, func(s string) bool { return s == live })

			// An event written beside daokit shows up in the open page.
			b.eval(`window.notReloaded = true`)
			marker := fmt.Sprintf("appended-%s-%d", lang, time.Now().UnixNano())
			line, _ := ledger.MarshalLine(ledger.NewEvent(time.Now(), "DKT-DASH", "RUN-DASH", "S1", ledger.EventSystem, ledger.SeverityWarn,
				ledger.ObjectOf("message", marker)))
			ledgertest.AppendEvents(t, root, line)
			b.waitText("#events tbody", 10*time.Second, func(s string) bool { return strings.Contains(s, marker) })
			b.waitText("#runs tbody", 10*time.Second, func(s string) bool { return strings.Contains(s, "RUN-DASH") })
			if b.eval(`return window.notReloaded === true`) != true {
				t.Fatal("the page was reloaded to show the event")
			}

			// An instruction typed in the page reaches the controller.
			instruction := fmt.Sprintf("dashboard instruction %s %d", lang, time.Now().UnixNano())
			b.typeInto("#text", instruction)
			b.click("#forward")
			b.waitText("#result", 20*time.Second, func(s string) bool { return s != "" })
			if cls := b.eval(`return document.getElementById("result").className`); cls != "result ok" {
				t.Fatalf("forward answered %q (class %v)", b.text("#result"), cls)
			}
			e, ok := findEvent(t, root, func(e ledger.Event) bool {
				return op(e) == "INSTRUCTION_RECEIVED" && e.Payload.String("text") == instruction
			})
			if !ok {
				t.Fatalf("the page said %q but the ledger has no INSTRUCTION_RECEIVED for %q", b.text("#result"), instruction)
			}
			b.waitText("#events tbody", 10*time.Second, func(s string) bool { return strings.Contains(s, e.EventID) || strings.Contains(s, instruction) })
			if b.eval(`return document.getElementById("text").value`) != "" {
				t.Error("the input still holds the forwarded instruction")
			}
			d.stop(t)
		})
	}

	t.Run("heartbeat", func(t *testing.T) {
		b := b.in(t)
		testHeartbeatAge(t, b)
	})

	t.Run("read-only", func(t *testing.T) {
		b := b.in(t)
		l := i18n.MustNew(i18n.English)
		d := startDashboard(t, root, i18n.English, "--read-only")
		b.open(d.url)
		if got, want := b.text("#readonly"), l.T("dashboard.read_only"); got != want {
			t.Errorf("read-only note %q, want %q", got, want)
		}
		if b.eval(`return document.getElementById("send") === null && document.getElementById("text") === null`) != true {
			t.Error("a read-only page has an input")
		}
		resp, err := http.Post(strings.Replace(d.url, "/?", "/send?", 1), "application/x-www-form-urlencoded", strings.NewReader("text=run+something"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST to a read-only dashboard: %s, want 403", resp.Status)
		}
		d.stop(t)
	})
}

// TestDashboardStartsAController: like the window, a dashboard on a root
// without a live controller starts one for the first instruction
// forwarded (the page's POST), and the instruction is carried out; with
// --no-start it starts none and says no controller answers.
func TestDashboardStartsAController(t *testing.T) {
	root := newRoot(t, simConfig("50ms"))
	noStart := startDashboard(t, root, i18n.English, "--no-start")
	resp, err := http.Post(strings.Replace(noStart.url, "/?", "/send?", 1), "application/x-www-form-urlencoded", strings.NewReader("text=nobody+answers"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := i18n.MustNew(i18n.English).T("tui.relay.error.unavailable"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), want) {
		t.Errorf("--no-start without a controller: %s %s, want 502 saying %q", resp.Status, body, want)
	}
	if pid := lockHolder(root); pid != 0 {
		t.Fatalf("--no-start started controller %d", pid)
	}
	noStart.stop(t)

	d := startDashboard(t, root, i18n.English)
	t.Cleanup(func() { killLockHolder(t, root) })
	resp, err = http.Post(strings.Replace(d.url, "/?", "/send?", 1), "application/x-www-form-urlencoded", strings.NewReader("text=started+for+me"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("forward with a controller to start: %s", resp.Status)
	}
	if _, ok := findEvent(t, root, func(e ledger.Event) bool {
		return op(e) == "INSTRUCTION_RECEIVED" && e.Payload.String("text") == "started for me"
	}); !ok {
		t.Fatal("acknowledged, but no INSTRUCTION_RECEIVED in the ledger")
	}
	if lockHolder(root) == 0 {
		t.Error("no controller holds the root after the forward")
	}
	d.stop(t)
}

// lockHolder is the live pid root's lock file names, 0 if none.
func lockHolder(root string) int {
	data, err := ledger.Layout{Root: root}.ReadFile(ledger.LockFile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// killLockHolder kills the controller a dashboard started (it runs in a
// session of its own, outliving the dashboard) and waits until it is gone.
func killLockHolder(t *testing.T, root string) {
	pid := lockHolder(root)
	if pid == 0 {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// writeHeartbeat replaces heartbeat_status.json as a writer does (a
// temporary file renamed over it).
func writeHeartbeat(t *testing.T, root string, h ledger.HeartbeatStatus) {
	t.Helper()
	data, err := h.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(root, "state", ".heartbeat.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "state", "heartbeat_status.json")); err != nil {
		t.Fatal(err)
	}
}

// testHeartbeatAge: a heartbeat file that says RUNNING but was last
// written an hour ago is shown past the stale threshold (its writer may
// be gone), as the window shows it; a fresh beat written beside the
// page replaces that without a reload.
func testHeartbeatAge(t *testing.T, b *browser) {
	root := newRoot(t, "")
	now := time.Now()
	hb := ledger.NewHeartbeatStatus(now)
	hb.Status, hb.WarningAfterSeconds, hb.StaleAfterSeconds = ledger.HeartbeatRunning, 20, 45
	hb.LastHeartbeatAt = ledger.FormatTime(now.Add(-time.Hour))
	writeHeartbeat(t, root, hb)
	l := i18n.MustNew(i18n.Chinese)
	d := startDashboard(t, root, i18n.Chinese, "--read-only")
	b.open(d.url)
	overStale := l.T("tui.heartbeat.over_stale")
	b.waitText("#hb-age", 10*time.Second, func(s string) bool { return strings.Contains(s, overStale) })
	b.eval(`window.notReloaded = true`)
	hb.LastHeartbeatAt = ledger.FormatTime(time.Now())
	writeHeartbeat(t, root, hb)
	b.waitText("#hb-age", 10*time.Second, func(s string) bool { return s != "" && !strings.Contains(s, overStale) })
	if b.eval(`return window.notReloaded === true`) != true {
		t.Fatal("the page was reloaded to show the heartbeat")
	}
	d.stop(t)
}
