package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/ledger"
	"github.com/nats-io/nats.go/jetstream"
)

// netLab is a set of network namespaces joined by veth pairs to a
// bridge in the hub's namespace, on the RFC 2544 test range
// 198.18.0.0/15; this (the test's) namespace is one more host on it.
// Nothing leaves the machine; the cleanup removes every namespace and
// link it made.
type netLab struct {
	t      testing.TB
	prefix string
	subnet string // "198.18.N"
	hub    string // the hub namespace
	hosts  int
}

// newNetLab makes the hub's namespace and its bridge, or skips the test
// where namespaces cannot be made (not root, no ip(8)).
func newNetLab(t testing.TB) *netLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip(8)")
	}
	n := os.Getpid()%200 + 20 // one subnet per test process
	l := &netLab{t: t, prefix: "dk" + strconv.Itoa(os.Getpid()%100000), subnet: "198.18." + strconv.Itoa(n)}
	l.hub = l.prefix + "h"
	l.ip("netns", "add", l.hub)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.hub).Run() })
	l.in(l.hub, "ip", "link", "set", "lo", "up")
	l.in(l.hub, "ip", "link", "add", "br0", "type", "bridge")
	l.in(l.hub, "ip", "addr", "add", l.subnet+".1/24", "dev", "br0")
	l.in(l.hub, "ip", "link", "set", "br0", "up")
	return l
}

// ip runs ip(8) in the test's namespace.
func (l *netLab) ip(args ...string) { l.in("", append([]string{"ip"}, args...)...) }

// in runs a command in namespace ns ("" for the test's own).
func (l *netLab) in(ns string, argv ...string) {
	l.t.Helper()
	if ns != "" {
		argv = append([]string{"ip", "netns", "exec", ns}, argv...)
	}
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		l.t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
}

// host adds a host on the bridge: a namespace of its own (or, own
// false, the test's namespace), and returns the namespace ("" for the
// test's) and its device there.
func (l *netLab) host(name string, own bool) (ns, dev string) {
	l.t.Helper()
	l.hosts++
	addr := l.subnet + "." + strconv.Itoa(l.hosts+1) + "/24"
	dev, peer := l.prefix+name, l.prefix+name+"p"
	l.ip("link", "add", dev, "type", "veth", "peer", "name", peer)
	l.t.Cleanup(func() { _ = exec.Command("ip", "link", "del", dev).Run() })
	l.ip("link", "set", peer, "netns", l.hub)
	l.in(l.hub, "ip", "link", "set", peer, "master", "br0", "up")
	if own {
		ns = l.prefix + name
		l.ip("netns", "add", ns)
		l.t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		l.ip("link", "set", dev, "netns", ns)
		l.in(ns, "ip", "link", "set", "lo", "up")
	}
	l.in(ns, "ip", "addr", "add", addr, "dev", dev)
	l.in(ns, "ip", "link", "set", dev, "up")
	return ns, dev
}

// cut takes the bridge's end of host name's link down: from then on
// the host's packets go nowhere, as in a partition (no reset, nothing
// closed, nobody told). tc netem would do the same where the kernel has
// it.
func (l *netLab) cut(name string) { l.in(l.hub, "ip", "link", "set", l.prefix+name+"p", "down") }

// startNetHub runs `daokit hub` in the hub namespace on the bridge's
// address and returns its URL and key file.
func (l *netLab) startNetHub(dir string) (url, creds string) {
	h := l.startNetHubProc(dir)
	return h.url, filepath.Join(dir, "admin.nk")
}

// netHub is a `daokit hub` in the hub namespace; kill SIGKILLs it.
type netHub struct {
	*printingProc
	url string
}

// startNetHubProc runs `daokit hub` in the hub namespace on the
// bridge's address (the same port each time, so that a hub started again
// on dir is where its clients left it) and returns once it printed its
// URL; the cleanup kills it.
func (l *netLab) startNetHubProc(dir string) *netHub {
	l.t.Helper()
	// ip netns exec execs the command: the pid is the hub's.
	cmd := exec.Command("ip", "netns", "exec", l.hub, daokit, "hub", "--listen", l.subnet+".1:4222", "--data", dir,
		"--monitor", "", "--lang", "en")
	h := &netHub{}
	h.printingProc = startPrinting(l.t, cmd, "daokit hub", func(line string) bool {
		h.url = hubURL.FindString(line)
		return h.url != ""
	})
	return h
}

// startNetAgent runs `daokit agent` in namespace ns.
func (l *netLab) startNetAgent(ns, url, creds, name string) *agentProc {
	t := l.t
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", ns, daokit, "agent", "--hub", url, "--credentials", creds, "--root-id", hubAgentRootID,
		"--name", name, "--lanes", "remote", "--ack-wait", "1s", "--work", t.TempDir())
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &agentProc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.done })
	return p
}

// TestAgentHostsOnNetworkNamespaces is the short cluster drill: a hub,
// two agent hosts and the controller on four network namespaces joined
// by veth pairs. Steps dispatched across the veths start on an agent
// host (the figure: the wait from the hub storing a step's offer to the
// agent starting its process); then the agent running a step is cut off
// mid-step (its link taken down at the bridge): it kills the step itself, the hub hands it
// to the other agent after AckWait, and the run ends DONE with the step
// finished once.
func TestAgentHostsOnNetworkNamespaces(t *testing.T) {
	lab := newNetLab(t)
	url, creds := lab.startNetHub(t.TempDir())
	lab.host("c", false) // the controller: this namespace
	nsA, _ := lab.host("a", true)
	nsB, _ := lab.host("b", true)
	lab.startNetAgent(nsA, url, creds, "host-a")

	// Dispatches across the veths: quick steps, one at a time, from a
	// root of their own.
	quick := newRoot(t, hubAgentConfig(url, creds, "1ms"))
	qctl := startController(t, quick)
	n := 20
	var runIDs []string
	for i := range n {
		taskID := ackTask(t, run(t, "send", "--root", quick, "quick "+strconv.Itoa(i)))
		end := finished(t, quick, taskID)
		if s := end.Payload.String("status"); s != ledger.StatusDone {
			t.Fatalf("quick step %d ended %s/%s", i, s, end.Payload.String("reason_code"))
		}
		runIDs = append(runIDs, end.RunID)
	}
	qctl.stop()
	waits := startWaits(t, url, creds, runIDs)
	slices.Sort(waits)
	t.Logf("dispatch across veth, offer stored → process about to start: median %v, p90 %v, max %v (n=%d)",
		waits[len(waits)/2], waits[len(waits)*9/10], waits[len(waits)-1], len(waits))

	// An agent cut off mid-step.
	root := newRoot(t, hubAgentConfig(url, creds, "3s"))
	ctl := startController(t, root)
	defer ctl.stop()
	lab.startNetAgent(nsB, url, creds, "host-b")
	taskID := ackTask(t, run(t, "send", "--root", root, "cut me off"))
	trace := filepath.Join(root, "runs.trace")
	first := waitTrace(t, trace, "start "+taskID)
	lost, _ := strconv.Atoi(strings.Fields(first)[3])
	onA := strings.Contains(stepLogWait(t, root, taskID, "agent host-"), "agent host-a")
	if onA {
		lab.cut("a")
	} else {
		lab.cut("b")
	}
	cutAt := time.Now()
	waitTraceCount(t, trace, "start "+taskID, 2)
	handedOn := time.Since(cutAt)
	end := finished(t, root, taskID)
	if s := end.Payload.String("status"); s != ledger.StatusDone {
		t.Fatalf("the cut-off step ended %s/%s, want DONE", s, end.Payload.String("reason_code"))
	}
	if groupAlive(lost) {
		t.Errorf("the cut-off agent's step (pid %d) still runs", lost)
	}
	runs := traceOf(root, taskID, "S1")
	if len(runs) != 3 {
		t.Errorf("runs.trace %q, want the lost start, then the other agent's start and done", runs)
	}
	second := strings.Fields(runs[1])
	t.Logf("the step of the cut-off agent (pid %d) started again on the other agent (pid %s) %v after the cut (AckWait 1s)",
		lost, second[3], handedOn.Round(time.Millisecond))
}

// stepLogWait waits until the S1 step's stderr.log of taskID holds want
// and returns it.
func stepLogWait(t *testing.T, root, taskID, want string) string {
	t.Helper()
	waitStepLog(t, root, taskID, "stderr.log", want)
	return stepLog(root, taskID, "S1", "stderr.log")
}

// startWaits reads the start records of the runs' S1 steps from the
// hub: how long each waited from the hub storing its offer to its agent
// starting its process (one clock: the namespaces share the machine's).
func startWaits(t *testing.T, url, creds string, runIDs []string) []time.Duration {
	t.Helper()
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: url, Creds: creds, Name: "drill"}, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	s, err := conn.JS.Stream(ctx, rt.ResultStream())
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	for _, runID := range runIDs {
		cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{rt.ResultSubject(steps.Key(runID, "S1"))}})
		if err != nil {
			t.Fatal(err)
		}
		batch, err := cons.FetchNoWait(1000)
		if err != nil {
			t.Fatal(err)
		}
		for msg := range batch.Messages() {
			var r steps.Record
			if json.Unmarshal(msg.Data(), &r) == nil && r.Type == steps.TypeStart {
				waits = append(waits, time.Duration(r.StartAt-r.QueuedAt))
			}
		}
	}
	if len(waits) != len(runIDs) {
		t.Fatalf("%d start records for %d runs", len(waits), len(runIDs))
	}
	return waits
}

// waitTraceCount waits until runs.trace holds n lines that start with
// prefix.
func waitTraceCount(t *testing.T, trace, prefix string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(trace)
		count := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, prefix) {
				count++
			}
		}
		if count >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs.trace has %d of %d lines %q within 30s:\n%s", count, n, prefix, data)
		}
		time.Sleep(5 * time.Millisecond) // polling a file; the condition decides
	}
}
