package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/ledger"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// hubRootConfig is simConfig with the root on the hub at url as rootID,
// with a two-second lease.
func hubRootConfig(url, key, rootID string) string {
	return hubRootConfigRuns(url, key, rootID, "0.2s")
}

// hubRootConfigRuns is hubRootConfig with runs lasting duration.
func hubRootConfigRuns(url, key, rootID, duration string) string {
	return simConfig(duration) + fmt.Sprintf(`
[hub]
url = %q
root_id = %q
credentials = %q
lease_ttl = "2s"
`, url, rootID, key)
}

// streamLines reads every message of root id's ledger stream, in order.
func streamLines(t *testing.T, url, key, rootID string) [][]byte {
	t.Helper()
	nk, err := nats.NkeyOptionFromSeed(key)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url, nk)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	names, _ := naming.ForRoot(rootID)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, names.LedgerStream())
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for seq := uint64(1); seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		out = append(out, m.Data)
	}
	return out
}

// fileLines splits root's events.jsonl into its lines, newline kept.
func fileLines(t *testing.T, root string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(ledger.Layout{Root: root}.Events())
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(data, []byte("\n"))[:bytes.Count(data, []byte("\n"))]
}

// electedIn returns the sequence numbers (1-based lines) of root's
// HUB_LEADER_ELECTED records.
func electedIn(lines [][]byte) []int {
	var at []int
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"HUB_LEADER_ELECTED"`)) {
			at = append(at, i+1)
		}
	}
	return at
}

// TestHubOneLeaderFencedAfterSIGSTOP drives two real controllers of one
// root id on two folders through a real `daokit hub`: exactly one
// leads, the other waits; the leader SIGSTOPped past its lease is
// replaced by the other, which caught its folder up from the hub first;
// resumed, the old leader has none of its writes accepted after its
// successor's first, and ends. The stream is the successor's
// events.jsonl, line for line.
func TestHubOneLeaderFencedAfterSIGSTOP(t *testing.T) {
	hubDir := t.TempDir()
	h := startHubProc(t, hubDir, "127.0.0.1:0")
	key := filepath.Join(hubDir, "admin.nk")
	const id = "drill-leader"
	// Runs of 3 s: the leader is stopped while its worker still writes
	// output, which it reads and tries to record once resumed.
	cfg := hubRootConfigRuns(h.url, key, id, "3s")
	rootA, rootB := newRoot(t, cfg), newRoot(t, cfg)

	a := startController(t, rootA)
	b, bReady := spawnController(t, rootB)
	for i := range 3 {
		ackTask(t, run(t, "send", "--root", rootA, fmt.Sprintf("burst %d", i)))
	}
	waitFor(t, 10*time.Second, "a worker of the leader running", func() bool { return hasWorkers(rootA) })
	lines := streamLines(t, h.url, key, id)
	if got := electedIn(lines); len(got) != 1 {
		t.Fatalf("elected records in the stream while A leads: %v, want exactly one (A's)", got)
	}
	select {
	case <-bReady:
		t.Fatal("the second controller of the root became ready while the first leads")
	default:
	}

	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-bReady:
		if !ok {
			t.Fatalf("the standby exited: %v", b.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the standby did not take over within 30s of the leader's SIGSTOP")
	}
	var successorFirst int
	waitFor(t, 10*time.Second, "B's elected record in the stream", func() bool {
		got := electedIn(streamLines(t, h.url, key, id))
		if len(got) == 2 {
			successorFirst = got[1]
		}
		return len(got) == 2
	})
	resumeDeposed(t, a)
	if log, _ := os.ReadFile(ledger.Layout{Root: rootA}.Path("controller.log")); !bytes.Contains(log, []byte("deposed")) {
		t.Error("the deposed leader's log does not say why it stepped down")
	}
	waitFor(t, 15*time.Second, "the deposed leader's workers gone", func() bool { return !hasWorkers(rootA) })
	if r := run(t, "send", "--root", rootB, "after the takeover"); r.code != 0 {
		t.Fatalf("send to the successor: %d %s", r.code, r.stderr)
	}
	b.stop()

	stream := streamLines(t, h.url, key, id)
	aLines := fileLines(t, rootA)
	// Everything the old leader wrote is in the stream before its
	// successor's first write, and nothing after.
	if len(aLines) >= successorFirst {
		t.Fatalf("the deposed leader's events.jsonl has %d lines, its successor's first write is message %d", len(aLines), successorFirst)
	}
	accepted := 0
	own := map[string]bool{}
	for i, l := range aLines {
		own[string(l)] = true
		if !bytes.Equal(l, stream[i]) {
			t.Fatalf("line %d of the deposed leader's events.jsonl is not message %d", i+1, i+1)
		}
	}
	for _, m := range stream[successorFirst-1:] {
		if own[string(m)] {
			accepted++
		}
	}
	if accepted != 0 {
		t.Errorf("%d writes of the deposed leader accepted after its successor's first", accepted)
	}
	bLines := fileLines(t, rootB)
	if len(bLines) != len(stream) {
		t.Fatalf("successor's events.jsonl has %d lines, the stream %d", len(bLines), len(stream))
	}
	for i := range stream {
		if !bytes.Equal(bLines[i], stream[i]) {
			t.Fatalf("successor's line %d differs from message %d", i+1, i+1)
		}
	}
	t.Logf("stream %d messages; deposed leader wrote %d, successor's first write is message %d; 0 accepted after it", len(stream), len(aLines), successorFirst)
}

// hasWorkers reports whether a live process works for root (its
// environment names it).
func hasWorkers(root string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, []byte("DAOKIT_ROOT="+root+"\x00")) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !bytes.Contains(stat, []byte(") Z ")) {
			return true
		}
	}
	return false
}

func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// startMirror runs `daokit mirror` and returns once it printed that it
// resumed.
func startMirror(t *testing.T, url, key, id, dir string) *printingProc {
	t.Helper()
	cmd := exec.Command(daokit, "mirror", "--hub", url, "--credentials", key, "--root-id", id, "--to", dir)
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	return startPrinting(t, cmd, "daokit mirror", func(line string) bool { return strings.Contains(line, "daokit mirror:") })
}

// sameFile reports whether the two files hold the same bytes.
func sameFile(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// TestHubMirrorEqualsLeaderAcrossSIGKILL runs `daokit mirror` of a
// leader's root on another folder: after a burst its events.jsonl is the
// leader's byte for byte and its pipeline_state.json the leader's; a
// mirror SIGKILLed during a second burst and started again resumes and
// is equal again; `daokit status` reads the mirror; `daokit check`
// beside the leader names it.
func TestHubMirrorEqualsLeaderAcrossSIGKILL(t *testing.T) {
	hubDir := t.TempDir()
	h := startHubProc(t, hubDir, "127.0.0.1:0")
	key := filepath.Join(hubDir, "admin.nk")
	const id = "drill-mirror"
	root := newRoot(t, hubRootConfig(h.url, key, id))
	c := startController(t, root)
	if r := run(t, "check", "--root", root); r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("led by %s pid %d ", hostname(t), c.pid())) {
		t.Errorf("daokit check beside the leader: exit %d, %q; want it to name the leader", r.code, r.stderr)
	}
	copyDir := t.TempDir()
	m := startMirror(t, h.url, key, id, copyDir)
	leader, mirrored := ledger.Layout{Root: root}, ledger.Layout{Root: copyDir}

	burst := func(tag string) {
		for i := range 5 {
			if r := run(t, "send", "--root", root, fmt.Sprintf("%s %d", tag, i)); r.code != 0 {
				t.Fatalf("send: %d %s", r.code, r.stderr)
			}
		}
	}
	burst("first")
	waitFor(t, 20*time.Second, "the mirror's events.jsonl equal to the leader's", func() bool {
		return sameFile(leader.Events(), mirrored.Events())
	})

	burst("second")
	_ = m.cmd.Process.Kill()
	<-m.done
	burst("third")
	startMirror(t, h.url, key, id, copyDir)
	waitFor(t, 20*time.Second, "the restarted mirror's events.jsonl equal to the leader's", func() bool {
		return sameFile(leader.Events(), mirrored.Events())
	})
	c.stop()
	waitFor(t, 20*time.Second, "the mirror equal to the stopped leader (events and pipeline)", func() bool {
		return sameFile(leader.Events(), mirrored.Events()) && sameFile(leader.Pipeline(), mirrored.Pipeline())
	})
	if r := run(t, "status", "--root", copyDir); r.code != 0 {
		t.Errorf("daokit status on the mirror: exit %d: %s", r.code, r.stderr)
	}
	n := len(fileLines(t, copyDir))
	t.Logf("mirror holds %d lines, equal to the leader's", n)
}

// TestHubOutageLosesNothingAcknowledged SIGKILLs the real hub five times
// in the middle of a stream of instructions to a leader, starting it
// again each time on the same directory and port: the leader's writes wait out the outage
// and go on; every instruction `daokit send` had acknowledged is in the
// stream and in the leader's events.jsonl, and the two are equal byte
// for byte.
func TestHubOutageLosesNothingAcknowledged(t *testing.T) {
	hubDir := t.TempDir()
	h := startHubProc(t, hubDir, "127.0.0.1:0")
	listen := strings.TrimPrefix(h.url, "nats://")
	key := filepath.Join(hubDir, "admin.nk")
	const id = "drill-outage"
	root := newRoot(t, hubRootConfig(h.url, key, id))
	c := startController(t, root)

	type sent struct {
		text string
		ok   bool
	}
	results := make(chan sent)
	stop := make(chan struct{})
	go func() {
		defer close(results)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			text := fmt.Sprintf("outage-drill-%d", i)
			r := run(t, "send", "--root", root, text)
			results <- sent{text: text, ok: r.code == 0}
		}
	}()
	var all []sent
	const kills = 5
	for range kills {
		for n := len(all) + 3; len(all) < n; {
			all = append(all, <-results)
		}
		// Sends in flight wait for the hub (the leader's writes, and so
		// its acknowledgements, wait out the outage).
		h.kill(t)
		h = startHubProc(t, hubDir, listen)
	}
	for n := len(all) + 3; len(all) < n; {
		all = append(all, <-results)
	}
	close(stop)
	for r := range results {
		all = append(all, r)
	}
	c.stop()

	stream := bytes.Join(streamLines(t, h.url, key, id), nil)
	file, err := os.ReadFile(ledger.Layout{Root: root}.Events())
	if err != nil {
		t.Fatal(err)
	}
	acked, lost := 0, 0
	for _, r := range all {
		if !r.ok {
			continue
		}
		acked++
		if !bytes.Contains(stream, []byte(r.text)) || !bytes.Contains(file, []byte(r.text)) {
			lost++
			t.Errorf("acknowledged instruction %q missing from the stream or the file", r.text)
		}
	}
	if !bytes.Equal(stream, file) {
		t.Errorf("after the outage the stream (%d bytes) is not the leader's events.jsonl (%d bytes)", len(stream), len(file))
	}
	t.Logf("%d hub SIGKILLs; %d sends, %d acknowledged, %d of them lost; stream = events.jsonl (%d lines)", kills, len(all), acked, lost, bytes.Count(file, []byte("\n")))
}

// resumeDeposed sends SIGCONT to a leader paused past its lease and
// checks that it steps down, saying it is no longer the root's leader.
func resumeDeposed(t *testing.T, a *controllerProc) {
	t.Helper()
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the deposed leader did not step down within 30s of SIGCONT")
	}
	if a.err == nil || !strings.Contains(a.err.Error(), "no longer the root's leader") {
		t.Errorf("the deposed leader ended with %v, want it to say it is no longer the leader", a.err)
	}
}
