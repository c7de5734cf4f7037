package e2e

import (
	"bufio"
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

	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// hubProc is a `daokit hub` child of the test.
type hubProc struct {
	url, monitor string
	out          *strings.Builder // stdout, complete once done is closed
	cmd          *exec.Cmd
	done         chan struct{}
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
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &hubProc{cmd: cmd, done: make(chan struct{}), out: &strings.Builder{}}
	ready := make(chan struct{})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			p.out.WriteString(line + "\n")
			if signalled {
				continue
			}
			if u := hubURL.FindString(line); u != "" {
				p.url = u
			}
			if m := monitorURL.FindStringSubmatch(line); m != nil {
				p.monitor = m[1]
				signalled = true
				close(ready)
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	select {
	case <-ready:
	case <-p.done:
		t.Fatal("daokit hub exited before it printed its addresses")
	case <-time.After(20 * time.Second):
		t.Fatal("daokit hub printed no addresses within 20s")
	}
	return p
}

// kill SIGKILLs the hub and waits for it to be gone.
func (p *hubProc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
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

// hubDeps are the modules the hub brings into daokit (go.mod), as
// package path prefixes.
var hubDeps = []string{"github.com/nats-io/", "github.com/klauspost/compress", "github.com/minio/highwayhash",
	"github.com/google/go-tpm", "github.com/antithesishq/", "golang.org/x/crypto", "golang.org/x/time"}

// TestHubCostsHelpNoHeavyInit: what the hub's packages do at every
// daokit start, before main, is small (their package initialisation
// allocates under 1 MB; it is about 250 kB, mostly nats-server's tables),
// and `daokit --help` starts no hub: it creates no data directory. The
// start-up time itself is measured by bench/hub.sh (make bench), not
// asserted here.
func TestHubCostsHelpNoHeavyInit(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(daokit, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("daokit --help: %v\n%s", err, stderr.String())
	}
	var bytes, pkgs int
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init github.com/nats-io/nuid @3.8 ms, 0.089 ms clock, 896 bytes, 19 allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		for _, dep := range hubDeps {
			if strings.HasPrefix(f[1], dep) {
				n, err := strconv.Atoi(f[7])
				if err != nil {
					t.Fatalf("inittrace line %q: %v", line, err)
				}
				bytes += n
				pkgs++
			}
		}
	}
	if pkgs == 0 {
		t.Fatalf("no package of the hub's dependencies in the init trace: is the hub still in the build?\n%s", stderr.String())
	}
	t.Logf("the hub's dependencies: %d packages allocate %d bytes at init", pkgs, bytes)
	if bytes > 1<<20 {
		t.Errorf("the hub's dependencies allocate %d bytes at every daokit start, want under 1 MB", bytes)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("daokit --help created %v under HOME", entries)
	}
}
