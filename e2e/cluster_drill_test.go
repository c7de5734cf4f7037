package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/ledger"
	"github.com/nats-io/nats.go/jetstream"
)

// TestClusterDrill is issue 31's cluster drill (`make drill-cluster` in
// full; a few rounds in `make test`): a hub, a leader and two agent
// hosts on four network namespaces, a standby controller of the same
// root id in the test's own, every client reaching the hub through a
// proxy that delays its bytes and stalls some of them (what a lost
// segment looks like above TCP). A burst of instructions is sent through
// the hub while the hub is SIGKILLed and started again on its folder,
// an agent is cut off mid-step, and the leader is SIGSTOPped past its
// lease (the standby takes over) and resumed. Then: every acknowledged
// instruction is in the final leader's ledger once, no step's effects
// were applied twice, the deposed leader wrote nothing after its
// successor's first write, and every run ended once.
func TestClusterDrill(t *testing.T) {
	if testing.Short() && !full() {
		t.Skip("the cluster drill does not run with -short")
	}
	lab := newNetLab(t)
	hubDir := t.TempDir()
	h := lab.startNetHubProc(hubDir)
	creds := filepath.Join(hubDir, "admin.nk")
	lab.host("c", false) // the test's namespace: the proxy, the sends, the standby
	nsL, _ := lab.host("l", true)
	nsA, _ := lab.host("a", true)
	nsB, _ := lab.host("b", true)
	px := startLossyProxy(t, lab.subnet+".2:0", strings.TrimPrefix(h.url, "nats://"))
	url := "nats://" + px.addr
	instructions, kills := rounds(30, 300), rounds(3, 100)

	traceDir := t.TempDir()
	cfg := strings.Replace(hubAgentConfig(url, creds, "1500ms"), "{root}/runs.trace", filepath.Join(traceDir, "runs.trace"), 1)
	// A three-second lease (as in the trial): a hub outage of a SIGKILL
	// and start on a loaded machine does not depose the leader by itself.
	cfg = strings.Replace(cfg, `lease_ttl = "1s"`, `lease_ttl = "3s"`, 1)
	cfg = strings.Replace(cfg, `stop_grace = "200ms"`, "stop_grace = \"200ms\"\nconcurrency = 4", 1)
	rootA, rootB := newRoot(t, cfg), newRoot(t, cfg)
	lab.startNetAgent(nsA, url, creds, "host-a")
	lab.startNetAgent(nsB, url, creds, "host-b")
	a := startControllerIn(t, nsL, rootA)
	b, bReady := spawnController(t, rootB)

	// The burst: four people sending at once through the hub.
	type sent struct {
		text, taskID string
	}
	var (
		mu     sync.Mutex
		acked  []sent
		tried  atomic.Int64
		failed atomic.Int64
		next   atomic.Int64
		wg     sync.WaitGroup
	)
	home, cache := t.TempDir(), t.TempDir()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(instructions); i = next.Add(1) - 1 {
				text := fmt.Sprintf("cluster-drill-%d", i)
				r := hubSend(home, cache, url, creds, text)
				tried.Add(1)
				if r.code != 0 && failed.Add(1) <= 3 {
					t.Logf("send %q not acknowledged (exit %d): %s", text, r.code, strings.TrimSpace(r.stderr))
				}
				if r.code == 0 && strings.HasPrefix(r.stdout, "task_id=") {
					mu.Lock()
					acked = append(acked, sent{text, strings.Fields(strings.TrimPrefix(r.stdout, "task_id="))[0]})
					mu.Unlock()
				}
			}
		}()
	}
	burstDone := make(chan struct{})
	go func() { wg.Wait(); close(burstDone) }()
	ackedCount := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }

	// The chaos, spread over the burst: the k-th hub kill waits for its
	// share of acknowledgements (or the burst's end).
	var cutFigure, takeoverFigure string
	var outages []time.Duration
	for k := range kills {
		waitFor(t, 120*time.Second, "the burst's progress", func() bool {
			select {
			case <-burstDone:
				return true
			default:
				return ackedCount() >= (k+1)*instructions/(kills+2)
			}
		})
		killedAt := time.Now()
		h.kill()
		h = lab.startNetHubProc(hubDir)
		outages = append(outages, time.Since(killedAt))
		t.Logf("hub SIGKILL %d: ready again %v later", k+1, outages[k].Round(time.Millisecond))
		switch k {
		case kills / 3:
			cutFigure = cutAgentMidStep(t, lab, rootA, traceDir)
		case 2 * kills / 3:
			takeoverFigure = pauseLeaderPastLease(t, rootA, a, b, bReady, h.url, creds)
		}
	}
	<-burstDone
	if a.cmd.ProcessState == nil {
		t.Fatal("the leader was never deposed: the drill did not reach its SIGSTOP")
	}

	mu.Lock()
	all := append([]sent(nil), acked...)
	mu.Unlock()
	for _, s := range all {
		finished(t, rootB, s.taskID)
	}
	b.stop()

	// 0 acknowledged instructions lost; every run ends once.
	evs := events(t, rootB)
	received, ends := map[string]int{}, map[string]int{}
	for _, e := range evs {
		if op(e) == "INSTRUCTION_RECEIVED" {
			received[e.TaskID]++
		}
		if op(e) == "RUN_FINISHED" {
			ends[e.RunID]++
		}
	}
	lost := 0
	for _, s := range all {
		if received[s.taskID] != 1 {
			lost++
			t.Errorf("acknowledged %s (%q): %d INSTRUCTION_RECEIVED in the final leader's ledger, want 1", s.taskID, s.text, received[s.taskID])
		}
	}
	endedTwice := 0
	for runID, n := range ends {
		if n != 1 {
			endedTwice++
			t.Errorf("run %s has %d RUN_FINISHED, want 1", runID, n)
		}
	}

	// 0 steps whose effects were applied twice.
	twice := 0
	runs := readRuns(t, traceDir)
	runOf := map[string]string{}
	for _, e := range evs {
		if e.TaskID != "" && e.RunID != "" {
			runOf[e.TaskID] = e.RunID
		}
	}
	for taskID, bySteps := range runs {
		for step, r := range bySteps {
			if r.done > 1 || r.repeats > 0 {
				twice++
				t.Errorf("%s %s: %d starts, %d finished, %d repeats: %q; the hub's records of the step: %s; the deposed leader's ledger of the task: %s; the final leader's: %s",
					taskID, step, r.starts, r.done, r.repeats, traceOf(traceDir, taskID, step), stepRecords(t, h.url, creds, runOf[taskID], step),
					taskOps(t, rootA, taskID), taskOps(t, rootB, taskID))
				t.Logf("%s %s: the deposed leader's step log:\n%s\nthe final leader's:\n%s", taskID, step,
					stepLogs(rootA, taskID, step), stepLogs(rootB, taskID, step))
			}
		}
	}
	for _, s := range all {
		if runs[s.taskID]["S1"].done != 1 {
			t.Errorf("acknowledged %s: its step finished %d times, want once", s.taskID, runs[s.taskID]["S1"].done)
		}
	}

	// 0 writes of the deposed leader after its successor's first.
	stream := streamLines(t, h.url, creds, hubAgentRootID)
	successorFirst := 0
	for i, l := range stream {
		var e ledger.Event
		if json.Unmarshal(l, &e) == nil && op(e) == "HUB_LEADER_ELECTED" && payloadInt(e, "pid") == b.pid() {
			successorFirst = i + 1
			break
		}
	}
	if successorFirst == 0 {
		t.Fatal("no elected record of the successor in the stream")
	}
	aLines := fileLines(t, rootA)
	late := 0
	for i, l := range aLines {
		if i >= len(stream) || !bytes.Equal(l, stream[i]) {
			t.Fatalf("line %d of the deposed leader's events.jsonl is not message %d of the stream", i+1, i+1)
		}
		if i+1 >= successorFirst {
			late++
		}
	}
	if late != 0 {
		t.Errorf("%d writes of the deposed leader at or after its successor's first (message %d)", late, successorFirst)
	}
	if bLines := fileLines(t, rootB); !bytes.Equal(bytes.Join(bLines, nil), bytes.Join(stream, nil)) {
		t.Errorf("the final leader's events.jsonl (%d lines) is not the stream (%d messages)", len(bLines), len(stream))
	}
	validLedger(t, rootB)
	if py := os.Getenv(pythonSrcEnv); py != "" {
		runPython(t, py, "check", "--root", rootB)
		pythonStatusAgrees(t, py, rootB)
	} else {
		t.Logf("%s not set: the Python tool's check is skipped", pythonSrcEnv)
	}

	// The steps the successor read back from the hub (their end was on
	// record there, not in its ledger) instead of running them again.
	readBack := 0
	logs, _ := filepath.Glob(filepath.Join(rootB, "artifacts", "*", "*", "S1", "stderr.log"))
	for _, l := range logs {
		if data, _ := os.ReadFile(l); bytes.Contains(data, []byte("read back from the hub")) {
			readBack++
		}
	}

	slices.Sort(outages)
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("%d instructions sent through the hub, %d acknowledged, %d lost; %d hub SIGKILLs (SIGKILL to ready: median %v, max %v); %s; %s; proxy: %d chunks delayed, %d stalled 200ms",
		tried.Load(), len(all), lost, kills, outages[len(outages)/2].Round(time.Millisecond), outages[len(outages)-1].Round(time.Millisecond), cutFigure, takeoverFigure, px.chunks.Load(), px.stalls.Load())
	t.Logf("%d steps applied twice; %d runs ended other than once (%d runs); %d steps read back by the successor; deposed leader wrote %d lines, successor's first write is message %d of %d, %d after it; load average %s",
		twice, endedTwice, len(ends), readBack, len(aLines), successorFirst, len(stream), late, strings.TrimSpace(string(load)))
}

// hubSend runs `daokit send` through the hub as a person on another
// host (a folder and cache of their own), bounded: a send that gets no
// answer within a minute counts as not acknowledged.
func hubSend(home, cache, url, creds, text string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, daokit, "send", "--hub", url, "--root-id", hubAgentRootID, "--credentials", creds, text)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en", "XDG_CACHE_HOME="+cache)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		code = -1
	}
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// startControllerIn starts a controller of root in network namespace ns
// and waits for its ready line.
func startControllerIn(t *testing.T, ns, root string) *controllerProc {
	t.Helper()
	// ip netns exec execs the command: the pid is the controller's.
	cmd := exec.Command("ip", "netns", "exec", ns, daokit, "controller", "--root", root)
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	p, ready := spawnControllerCmd(t, cmd)
	select {
	case _, ok := <-ready:
		if !ok {
			t.Fatalf("controller exited before it was ready: %v", p.err)
		}
	case <-time.After(20 * time.Second):
		p.kill()
		t.Fatal("controller not ready within 20s")
	}
	return p
}

// cutAgentMidStep waits for an agent to start a step of the leader at
// root, takes that agent's link down, waits for the step to start again
// on the other agent, and brings the link back up (the cut-off agent's
// late words must then be ignored). It returns the figure. The step is
// one that started after the call, so that the cut comes mid-step: an
// agent cut off kills its step within 3/4 of AckWait of its last
// renewal, and a step that ends before that has run to its end (its end
// stuck behind the cut), which no protocol can take back.
func cutAgentMidStep(t *testing.T, lab *netLab, root, traceDir string) string {
	t.Helper()
	trace := filepath.Join(traceDir, "runs.trace")
	before, _ := os.ReadFile(trace)
	var taskID, host string
	var pid int
	waitFor(t, 60*time.Second, "a step starting on an agent", func() bool {
		data, _ := os.ReadFile(trace)
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) != 4 || f[0] != "start" || bytes.Contains(before, []byte(line+"\n")) || bytes.Contains(data, []byte("done "+f[1]+" "+f[2]+" "+f[3])) {
				continue
			}
			p, _ := strconv.Atoi(f[3])
			log := stepLog(root, f[1], f[2], "stderr.log")
			for _, h := range []string{"a", "b"} {
				if groupAlive(p) && strings.Contains(log, "agent host-"+h+" runs this step") {
					taskID, host, pid = f[1], h, p
					return true
				}
			}
		}
		return false
	})
	lab.cut(host)
	cutAt := time.Now()
	waitTraceCount(t, trace, "start "+taskID+" S1 ", 2)
	handedOn := time.Since(cutAt)
	waitFor(t, 10*time.Second, "the cut-off agent's step stopped", func() bool { return !groupAlive(pid) })
	lab.in(lab.hub, "ip", "link", "set", lab.prefix+host+"p", "up")
	return fmt.Sprintf("host-%s cut off mid-step of %s, started again on the other agent %v after the cut", host, taskID, handedOn.Round(time.Millisecond))
}

// pauseLeaderPastLease SIGSTOPs the leader a until the standby b leads
// (its elected record in the stream), then resumes a and waits for it to
// step down. It returns the figure.
func pauseLeaderPastLease(t *testing.T, root string, a, b *controllerProc, bReady <-chan string, hubURL, creds string) string {
	t.Helper()
	select {
	case <-a.done:
		log, _ := os.ReadFile(ledger.Layout{Root: root}.Path("controller.log"))
		var why []string
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, "deposed") || strings.Contains(l, "lease") || strings.Contains(l, "hub") && !strings.Contains(l, "level=ERROR") {
				why = append(why, l)
			}
		}
		t.Fatalf("the leader ended before its SIGSTOP: %v\n%s", a.err, strings.Join(why, "\n"))
	default:
	}
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	select {
	case _, ok := <-bReady:
		if !ok {
			t.Fatalf("the standby exited: %v", b.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the standby did not take over within 30s of the leader's SIGSTOP")
	}
	took := time.Since(stopped)
	resumeDeposed(t, a)
	return fmt.Sprintf("leader SIGSTOPped, the standby ready %v later (lease 3s)", took.Round(time.Millisecond))
}

// lossyProxy forwards TCP connections to a hub, delaying every chunk
// of bytes by 1–10 ms and stalling one chunk in fifty by 200 ms: above
// TCP a lost segment is a stall of one retransmission timeout, which is
// what tc netem's loss would show the hub's clients (the kernel here has
// no netem).
type lossyProxy struct {
	addr           string
	chunks, stalls atomic.Int64
}

// startLossyProxy listens on listen and forwards to upstream until the
// test ends; the cleanup closes every connection and waits for its
// goroutines.
func startLossyProxy(t *testing.T, listen, upstream string) *lossyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{addr: ln.Addr().String()}
	closing := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	track := func(c net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		select {
		case <-closing:
			_ = c.Close()
			return false
		default:
		}
		conns[c] = true
		return true
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil { // the hub is down: the client retries
				_ = down.Close()
				continue
			}
			if !track(down) || !track(up) {
				_ = down.Close()
				_ = up.Close()
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); p.pump(up, down, closing) }()
			go func() { defer wg.Done(); p.pump(down, up, closing) }()
		}
	}()
	t.Cleanup(func() {
		close(closing)
		_ = ln.Close()
		mu.Lock()
		for c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return p
}

// pump copies from src to dst: each chunk leaves its delay after it
// came (a latency, not a limit on throughput), in order, so a stalled
// chunk holds up those behind it as a lost segment does; the end of
// either side closes both.
func (p *lossyProxy) pump(dst, src net.Conn, closing <-chan struct{}) {
	type chunk struct {
		data []byte
		due  time.Time
	}
	queue := make(chan chunk, 4096)
	written := make(chan struct{})
	go func() {
		defer close(written)
		defer func() { _ = dst.Close(); _ = src.Close() }()
		for c := range queue {
			select {
			case <-time.After(time.Until(c.due)): // the injected latency itself
			case <-closing:
				return
			}
			if _, err := dst.Write(c.data); err != nil {
				return
			}
		}
	}()
	defer func() { <-written }()
	defer close(queue)
	var last time.Time
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			delay := time.Millisecond + rand.N(9*time.Millisecond)
			if rand.N(50) == 0 {
				delay = 200 * time.Millisecond
				p.stalls.Add(1)
			}
			p.chunks.Add(1)
			due := time.Now().Add(delay)
			if due.Before(last) {
				due = last // in order
			}
			last = due
			select {
			case queue <- chunk{append([]byte(nil), buf[:n]...), due}:
			case <-written:
				return
			}
		}
		if err != nil { // io.EOF or a closed side alike
			return
		}
	}
}

// stepRecords sums up the hub's records of a step (dispatches, starts,
// ends, skips, with their dispatch and delivery), to say how a step came
// to run twice.
func stepRecords(t *testing.T, url, creds, runID, step string) string {
	t.Helper()
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: url, Creds: creds, Name: "drill"}, rt, nil)
	if err != nil {
		return err.Error()
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := conn.JS.Stream(ctx, rt.ResultStream())
	if err != nil {
		return err.Error()
	}
	key := steps.Key(runID, step)
	// The records of a step and its end, dispatch and stop subjects
	// and claim subjects (hub/steps suffixes the key).
	subjects := []string{rt.ResultSubject(key), rt.ResultSubject(key + "-e"), rt.ResultSubject(key + "-d"), rt.ResultSubject(key + "-s"), rt.ResultSubject(key + "-c")}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: subjects})
	if err != nil {
		return err.Error()
	}
	batch, err := cons.FetchNoWait(10000)
	if err != nil {
		return err.Error()
	}
	var out []string
	for msg := range batch.Messages() {
		var r steps.Record
		if json.Unmarshal(msg.Data(), &r) == nil && r.Type != steps.TypeLine {
			meta, _ := msg.Metadata()
			out = append(out, fmt.Sprintf("%s d%d/%d %s exit=%d stopped=%s @%s", r.Type, r.Dispatch, r.Delivery, r.Agent, r.ExitCode, r.Stopped,
				meta.Timestamp.Format("15:04:05.000")))
		}
	}
	return strings.Join(out, "; ")
}

// taskOps sums up a root's ledger of a task (each event's op, with the
// attempt and reason it names), to say how a step came to run twice.
func taskOps(t *testing.T, root, taskID string) string {
	t.Helper()
	var out []string
	for _, l := range fileLines(t, root) {
		var e ledger.Event
		if json.Unmarshal(l, &e) != nil || e.TaskID != taskID {
			continue
		}
		s := op(e)
		if n := payloadInt(e, "attempt"); n > 0 {
			s += fmt.Sprintf(" a%d", n)
		}
		if why := e.Payload.String("reason_code") + e.Payload.String("why"); why != "" {
			s += " " + why
		}
		out = append(out, s+" @"+e.Timestamp)
	}
	return strings.Join(out, ", ")
}

// stepLogs is every attempt's stderr.log of a step, each under its path.
func stepLogs(root, taskID, step string) string {
	matches, _ := filepath.Glob(filepath.Join(root, "artifacts", taskID, "*", step, "stderr.log"))
	var b strings.Builder
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		fmt.Fprintf(&b, "== %s\n%s", m, data)
	}
	return b.String()
}
