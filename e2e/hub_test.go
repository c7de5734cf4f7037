package e2e

import (
	"context"
	"errors"
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

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// hubProc is a `daokit hub` child of the test.
type hubProc struct {
	*printingProc
	url, monitor string
}

var (
	hubURL     = regexp.MustCompile(`nats://\S+`)
	monitorURL = regexp.MustCompile(`(http://\S+)/healthz`)
)

// startHubProc runs `daokit hub` on listen with its data in dir and a
// monitor on a free loopback port, and returns once it printed where
// clients and the monitor connect; the cleanup kills it.
func startHubProc(t testing.TB, dir, listen string) *hubProc {
	t.Helper()
	cmd := exec.Command(daokit, "hub", "--listen", listen, "--data", dir, "--monitor", "127.0.0.1:0", "--lang", "en")
	cmd.Env = os.Environ()
	h := &hubProc{}
	h.printingProc = startPrinting(t, cmd, "daokit hub", func(line string) bool {
		if u := hubURL.FindString(line); u != "" {
			h.url = u
		}
		if m := monitorURL.FindStringSubmatch(line); m != nil {
			h.monitor = m[1]
			return true
		}
		return false
	})
	return h
}

// kill SIGKILLs the hub and waits for it to be gone.
func (h *hubProc) kill(t *testing.T) {
	t.Helper()
	_ = h.cmd.Process.Kill()
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		t.Fatal("daokit hub still running 10s after SIGKILL")
	}
}

// TestHubKeepsEveryAcknowledgedMessageAcrossSIGKILL drives the real
// `daokit hub` as an operator runs it: a client without the key is
// refused; a client with the generated key publishes to a root's ledger
// stream, each message acknowledged, while the hub is SIGKILLed in the
// middle of the stream of publishes; the hub restarted on the same
// directory and port still holds every message it acknowledged, at the
// sequence it acknowledged, and its health endpoint answers. Then
// SIGTERM stops it cleanly.
func TestHubKeepsEveryAcknowledgedMessageAcrossSIGKILL(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "admin.nk")
	h := startHubProc(t, dir, "127.0.0.1:0")
	listen := strings.TrimPrefix(h.url, "nats://")

	if nc, err := nats.Connect(h.url, nats.NoReconnect()); err == nil {
		nc.Close()
		t.Fatal("a client without the key was let in")
	} else if !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("client without the key: %v, want an authorization violation", err)
	}

	withKey, err := nats.NkeyOptionFromSeed(key)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(h.url, withKey, nats.NoReconnect())
	if err != nil {
		t.Fatalf("client with the generated key: %v", err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	root, _ := naming.ForRoot("drill")
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: root.LedgerStream(), Subjects: []string{root.LedgerSubject()}, Storage: jetstream.FileStorage,
	}); err != nil {
		t.Fatal(err)
	}

	n := 200
	if full() {
		n = 2000
	}
	// The publisher goes on until the hub is gone; the kill comes once n
	// messages are acknowledged, amid further publishes.
	acked := map[uint64]string{}
	reached := make(chan struct{})
	stopped := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			body := "event-" + strings.Repeat("x", i%7) + "-" + strconv.Itoa(i)
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			ack, err := js.Publish(pctx, root.LedgerSubject(), []byte(body))
			cancel()
			if err != nil {
				stopped <- err
				return
			}
			acked[ack.Sequence] = body
			if len(acked) == n {
				close(reached)
			}
		}
	}()
	select {
	case <-reached:
	case err := <-stopped:
		t.Fatalf("publishing stopped before the kill: %v", err)
	}
	h.kill(t)
	<-stopped
	nc.Close()

	h = startHubProc(t, dir, listen)
	if h.url != "nats://"+listen {
		t.Fatalf("restarted hub at %s, want %s", h.url, "nats://"+listen)
	}
	nc, err = nats.Connect(h.url, withKey, nats.NoReconnect())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ = jetstream.New(nc)
	s, err := js.Stream(ctx, root.LedgerStream())
	if err != nil {
		t.Fatalf("the ledger stream after SIGKILL: %v", err)
	}
	lost := 0
	for seq, body := range acked {
		m, err := s.GetMsg(ctx, seq)
		if err != nil || string(m.Data) != body {
			lost++
		}
	}
	info, _ := s.Info(ctx)
	t.Logf("%d acknowledged before SIGKILL, %d stored after restart", len(acked), info.State.Msgs)
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged messages lost or changed across SIGKILL", lost, len(acked))
	}

	resp, err := http.Get(h.monitor + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("healthz after restart: %d %s", resp.StatusCode, body)
	}

	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		t.Fatal("daokit hub did not stop within 10s of SIGTERM")
	}
	if code := h.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(h.out.String(), "daokit hub stopped") {
		t.Errorf("after SIGTERM: exit %d, output:\n%s", code, h.out.String())
	}
}

// TestDaokitStartsNoServerInit: `daokit --help` initialises no package
// of the NATS server (it is in daokit-hub alone: its inits start a
// /proc sampler that wakes every second, in every daokit process), while
// daokit-hub does; and --help starts no hub: it creates no data
// directory. Start-up times are measured by bench/hub.sh (make bench),
// not asserted here.
func TestDaokitStartsNoServerInit(t *testing.T) {
	t.Parallel()
	for bin, wantServer := range map[string]bool{daokit: false, filepath.Join(filepath.Dir(daokit), "daokit-hub"): true} {
		home := t.TempDir()
		cmd := exec.Command(bin, "--help")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s --help: %v\n%s", bin, err, stderr.String())
		}
		server := 0
		for _, line := range strings.Split(stderr.String(), "\n") {
			// init github.com/nats-io/nats-server/v2/server/pse @3.8 ms, 0.089 ms clock, 896 bytes, 19 allocs
			if f := strings.Fields(line); len(f) > 1 && f[0] == "init" && strings.HasPrefix(f[1], "github.com/nats-io/nats-server/") {
				server++
			}
		}
		if (server > 0) != wantServer {
			t.Errorf("%s --help initialises %d packages of nats-server; want some: %v", bin, server, wantServer)
		}
		if entries, _ := os.ReadDir(home); len(entries) != 0 {
			t.Errorf("%s --help created %v under HOME", bin, entries)
		}
	}
}

// TestHubCommandUsesTheHubsDefaults: `daokit hub --help` shows the
// addresses daokit-hub listens on when not told (daokit keeps copies of
// them, as it does not link the hub package).
func TestHubCommandUsesTheHubsDefaults(t *testing.T) {
	t.Parallel()
	r := run(t, "hub", "--help", "--lang", "en")
	if r.code != 0 || !strings.Contains(r.stdout, hub.DefaultListen) || !strings.Contains(r.stdout, hub.DefaultMonitor) {
		t.Errorf("daokit hub --help: code %d, stdout %q; want %s and %s in it", r.code, r.stdout, hub.DefaultListen, hub.DefaultMonitor)
	}
}
