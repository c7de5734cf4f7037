package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"golang.org/x/sys/unix"
)

// demoConfig is `make run`'s daokit.toml (examples/demo), with the
// controller kept alive for the test.
func demoConfig(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "demo", "daokit.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return "[controller]\nidle_exit = \"0s\"\n\n" + string(data)
}

// loopConfig is a loop of quick simulated agents with drill timings: the
// reviewer requests changes in iteration 1 and approves in iteration 2.
// The judge is a command that passes from iteration 2 on. Every agent
// and judge run appends "start" and, once it finished, "done" with its
// task and step to runs.trace in the root (see readRuns): what really
// ran, whatever the ledger says.
var loopConfig = drillTimings + `
[[lanes]]
name = "coder"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--duration", "800ms", "--lines", "6", "--trace", "{root}/runs.trace", "--", "{instruction}"]
stop_grace = "200ms"

[[lanes]]
name = "reviewer"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--role", "reviewer", "--duration", "800ms", "--trace", "{root}/runs.trace", "--", "{instruction}"]
stop_grace = "200ms"

[workflow]
kind = "loop"
max_iterations = 3
coder = "coder"
reviewer = "reviewer"
judge = "command"
judge_command = ` + tomlArray(drillJudge) + `
`

// drillJudge is loopConfig's judge: it takes a moment (a kill can strike
// it), traces its runs like the agents, and passes from iteration 2 on.
var drillJudge = []string{"sh", "-c", `echo "start $DAOKIT_TASK_ID $DAOKIT_STEP_ID $$" >> "$DAOKIT_ROOT/runs.trace"; sleep 0.3; ` +
	`echo "done $DAOKIT_TASK_ID $DAOKIT_STEP_ID $$" >> "$DAOKIT_ROOT/runs.trace"; [ "$DAOKIT_ITERATION" -ge 2 ]`}

// TestSendWaitRunsTheDemoLoop: on the demo's daokit.toml, send --wait
// sees two iterations, the reviewer's findings and verdicts, and DONE.
func TestSendWaitRunsTheDemoLoop(t *testing.T) {
	t.Parallel()
	root := newRoot(t, demoConfig(t))
	ctl := startController(t, root)
	defer ctl.stop()
	r := run(t, "send", "--root", root, "--wait", "add a --json flag to status")
	if r.code != 0 || !strings.Contains(r.stdout, "is DONE") || !strings.Contains(r.stdout, "VERDICT:") {
		t.Fatalf("send --wait: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var verdicts, decisions []string
	var findings int
	for _, e := range events(t, root) {
		if err := e.Validate(); err != nil {
			t.Errorf("event does not validate: %v", err)
		}
		switch op(e) {
		case "REVIEW_VERDICT":
			verdicts = append(verdicts, e.Payload.String("verdict"))
			if raw, ok := e.Payload.Get("findings"); ok && len(raw) > 2 {
				findings++
			}
		case "ITERATION_FINISHED":
			decisions = append(decisions, fmt.Sprintf("%d:%s", payloadInt(e, "iteration"), e.Payload.String("decision")))
		}
	}
	if strings.Join(verdicts, ",") != "request_changes,approve" || findings != 1 {
		t.Errorf("verdicts %v (%d with findings), want request_changes with findings, then approve", verdicts, findings)
	}
	if strings.Join(decisions, ",") != "1:continue,2:done" {
		t.Errorf("judge decisions %v", decisions)
	}
	st := run(t, "status", "--root", root)
	if !strings.Contains(st.stdout, "iteration 2/3") || !strings.Contains(st.stdout, "approve") {
		t.Errorf("status does not show the loop:\n%s", st.stdout)
	}
	js := run(t, "status", "--root", root, "--json")
	var doc struct {
		Workflow struct {
			Iteration int    `json:"iteration"`
			Max       int    `json:"max_iterations"`
			Verdict   string `json:"verdict"`
			Decision  string `json:"decision"`
			Summary   string `json:"summary"`
		} `json:"workflow"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil {
		t.Fatalf("status --json: %v\n%s", err, js.stdout)
	}
	if w := doc.Workflow; w.Iteration != 2 || w.Max != 3 || w.Verdict != "approve" || w.Decision != "done" || w.Summary == "" {
		t.Errorf("status --json workflow %+v", w)
	}
}

// TestLoopKillDrill kills the controller with SIGKILL at a random point of
// iteration 2, round after round (3 rounds; 50 under DAOKIT_DRILL=full):
// the successor resumes iteration 2, no finished step runs again in the
// ledger, and no agent or judge process that finished runs again either
// (runs.trace counts the processes themselves: a run that the kill cut
// short runs again, one that finished must not).
func TestLoopKillDrill(t *testing.T) {
	n := rounds(3, 50)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 11))
	root := newRoot(t, loopConfig)
	ctl := startController(t, root)
	var resumes []time.Duration // from the kill to the successor's next step start
	// Rounds in which the run ended before the kill (a loaded machine
	// slowed the strike) test nothing: they are run again, up to n more.
	struck, late := 0, 0
	var tally runTally
	readBack := map[string]int{} // the successors' decisions on left workers, by why
	for i := 0; struck < n && i < 2*n; i++ {
		taskID := ackTask(t, run(t, "send", "--root", root, "--no-start", fmt.Sprintf("loop drill round %d", i)))
		waitEvent(t, root, "iteration 2", 30*time.Second, func(e ledger.Event) bool {
			return e.TaskID == taskID && e.EventType == ledger.EventStepStarted && e.StepID == "I2-coder"
		})
		// The random point of iteration 2 to strike at: its two steps take
		// 1.6 s of simulated work, its judge 0.3 s, and more to start.
		time.Sleep(time.Duration(rng.IntN(1800)) * time.Millisecond)
		killedAt := time.Now()
		ctl.kill()
		ctl = startController(t, root)
		end := finished(t, root, taskID)
		if at, _ := ledger.ParseTime(end.Timestamp); at.Before(killedAt) {
			late++
			t.Logf("round %d: the run ended before the kill; not counted", i)
		} else {
			struck++
		}
		if again, ok := findEvent(t, root, func(e ledger.Event) bool {
			at, _ := ledger.ParseTime(e.Timestamp)
			return e.TaskID == taskID && e.EventType == ledger.EventStepStarted && at.After(killedAt)
		}); ok {
			at, _ := ledger.ParseTime(again.Timestamp)
			resumes = append(resumes, at.Sub(killedAt))
		}
		if end.Payload.String("status") != ledger.StatusDone {
			t.Fatalf("round %d: ended %s/%s (seed %d)", i, end.Payload.String("status"), end.Payload.String("reason_code"), seed)
		}
		started, completed := map[string]int{}, map[string]int{}
		for _, e := range events(t, root) {
			if e.TaskID != taskID {
				continue
			}
			at, _ := ledger.ParseTime(e.Timestamp)
			switch {
			case e.EventType == ledger.EventStepStarted:
				if completed[e.StepID] > 0 {
					t.Errorf("round %d: %s started again after it completed (seed %d)", i, e.StepID, seed)
				}
				started[e.StepID]++
			case e.EventType == ledger.EventStepCompleted:
				completed[e.StepID]++
			case op(e) == "ITERATION_STARTED" && at.After(killedAt) && payloadInt(e, "iteration") != 2:
				t.Errorf("round %d: the successor started iteration %d, want to resume 2 (seed %d)", i, payloadInt(e, "iteration"), seed)
			}
		}
		for _, id := range []string{"I1-coder", "I1-reviewer"} {
			if started[id] != 1 || completed[id] != 1 {
				t.Errorf("round %d: %s started %d and completed %d times, want once (seed %d)", i, id, started[id], completed[id], seed)
			}
		}
		for id, c := range completed {
			if c != 1 {
				t.Errorf("round %d: %s completed %d times (seed %d)", i, id, c, seed)
			}
		}
		// The processes themselves: each step of the round's task ran to
		// its end once, and nothing started again after it had.
		steps := readRuns(t, root)[taskID]
		for _, step := range []string{"I1-coder", "I1-reviewer", "I1-judge", "I2-coder", "I2-reviewer", "I2-judge"} {
			r := steps[step]
			tally.add(step, r)
			if r.done != 1 || r.repeats > 0 {
				t.Errorf("round %d: %s ran %d times, finished %d times, repeated finished work %d times, want 1 finish and 0 repeats (seed %d); %s; runs %q; killed at %s; log ends %q",
					i, step, r.starts, r.done, r.repeats, seed, readBacks(t, root, taskID, step), traceOf(root, taskID, step),
					killedAt.UTC().Format("15:04:05.000000"), logTail(root, taskID, step))
			}
		}
		for _, e := range events(t, root) {
			if e.TaskID == taskID && op(e) == "STEP_READ_BACK" {
				readBack[e.Payload.String("why")]++
			}
		}
		if pids := workersOf(root, taskID); len(pids) != 0 {
			t.Errorf("round %d: workers left behind: %v", i, pids)
		}
		validLedger(t, root)
	}
	if struck < n {
		t.Errorf("only %d of %d rounds struck inside iteration 2 (%d too late; seed %d)", struck, n, late, seed)
	}
	risingGenerations(t, root)
	slices.Sort(resumes)
	report := fmt.Sprintf("loop kill drill: %d rounds struck inside iteration 2 (%d more came too late and were run again), "+
		"%d resumed with a step, resume median %v, max %v; processes: %s; left workers read back: %v; seed %d\n", struck, late, len(resumes),
		pick(resumes, 2), pick(resumes, 1), tally, readBack, seed)
	t.Log(report)
	if full() {
		fmt.Print(report)
	}
	ctl.stop()
}

// readBacks describes what the successors decided about step's left
// workers (STEP_READ_BACK), for a failure's message.
func readBacks(t testing.TB, root, taskID, step string) string {
	var out []string
	for _, e := range events(t, root) {
		if e.TaskID == taskID && e.StepID == step && op(e) == "STEP_READ_BACK" {
			out = append(out, fmt.Sprintf("read back pid %d: %s", payloadInt(e, "pid"), e.Payload.String("why")))
		}
	}
	if len(out) == 0 {
		return "no worker read back"
	}
	return strings.Join(out, ", ")
}

// traceOf returns the lines of runs.trace about one step of a task.
func traceOf(root, taskID, step string) []string {
	data, _ := os.ReadFile(filepath.Join(root, "runs.trace"))
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, " "+taskID+" "+step+" ") {
			out = append(out, line)
		}
	}
	return out
}

// logTail returns the last bytes of a step's stdout.log.
func logTail(root, taskID, step string) string {
	matches, _ := filepath.Glob(filepath.Join(root, "artifacts", taskID, "*", step, "stdout.log"))
	if len(matches) == 0 {
		return "(no log)"
	}
	data, _ := os.ReadFile(matches[0])
	return string(data[max(len(data)-600, 0):])
}

// stepRuns counts one step's processes in runs.trace.
type stepRuns struct {
	starts, done int
	// repeats counts work done twice: every finished run beyond the
	// first (started after it, or beside it), and every run started
	// after one had finished even if it was cut short itself.
	repeats int
}

// readRuns reads runs.trace in root: by task and step, how often a
// process started, finished, and repeated a finished one.
func readRuns(t testing.TB, root string) map[string]map[string]stepRuns {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "runs.trace"))
	if err != nil {
		t.Fatalf("read runs.trace: %v", err)
	}
	type run struct {
		afterDone, done bool
	}
	runs := map[[2]string]map[string]*run{} // by task and step, then pid
	order := map[[2]string][]string{}
	finished := map[[2]string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("runs.trace line %q", line)
		}
		key, pid := [2]string{f[1], f[2]}, f[3]
		if runs[key] == nil {
			runs[key] = map[string]*run{}
		}
		switch f[0] {
		case "start":
			runs[key][pid] = &run{afterDone: finished[key]}
			order[key] = append(order[key], pid)
		case "done":
			if r := runs[key][pid]; r != nil {
				r.done = true
			}
			finished[key] = true
		}
	}
	out := map[string]map[string]stepRuns{}
	for key, pids := range order {
		var s stepRuns
		for _, pid := range pids {
			r := runs[key][pid]
			s.starts++
			if r.done {
				s.done++
			}
			if r.afterDone && !r.done {
				s.repeats++
			}
		}
		s.repeats += max(s.done-1, 0)
		if out[key[0]] == nil {
			out[key[0]] = map[string]stepRuns{}
		}
		out[key[0]][key[1]] = s
	}
	return out
}

// runTally sums stepRuns over a drill: agent and judge processes apart.
type runTally struct {
	agentStarts, agentRepeats, agentCut int
	judgeStarts, judgeRepeats, judgeCut int
}

func (t *runTally) add(step string, r stepRuns) {
	cut := r.starts - r.done // runs the kill cut short before they finished
	if strings.HasSuffix(step, "-judge") {
		t.judgeStarts, t.judgeRepeats, t.judgeCut = t.judgeStarts+r.starts, t.judgeRepeats+r.repeats, t.judgeCut+cut
		return
	}
	t.agentStarts, t.agentRepeats, t.agentCut = t.agentStarts+r.starts, t.agentRepeats+r.repeats, t.agentCut+cut
}

func (t runTally) String() string {
	return fmt.Sprintf("agents started %d (cut short %d, finished ones run again %d), "+
		"judges started %d (cut short %d, finished ones run again %d)",
		t.agentStarts, t.agentCut, t.agentRepeats, t.judgeStarts, t.judgeCut, t.judgeRepeats)
}

// pick returns the median (of 2) or the maximum (of 1) of sorted d.
func pick(d []time.Duration, of int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	if of == 1 {
		return d[len(d)-1].Round(time.Millisecond)
	}
	return d[len(d)/2].Round(time.Millisecond)
}

// The loop benchmark's three processes, as its daokit.toml runs them:
// instantly finishing simulated agents and a judge command that never
// passes, so a run is exactly max_iterations iterations of three process
// starts each.
var (
	benchCoder    = []string{"{daokit}", "worker", "sim", "--duration", "0", "--lines", "2", "--", "{instruction}"}
	benchReviewer = []string{"{daokit}", "worker", "sim", "--role", "reviewer", "--never-approve", "--duration", "0", "--", "{instruction}"}
	benchJudge    = []string{"sh", "-c", "exit 1"}
)

// benchInstruction is what the benchmark sends.
const benchInstruction = "bench the loop"

// benchLoopConfig runs benchCoder, benchReviewer and benchJudge in a loop
// of 100 iterations.
var benchLoopConfig = `
[controller]
idle_exit = "0s"

[[lanes]]
name = "coder"
kind = "sim"
command = ` + tomlArray(benchCoder) + `

[[lanes]]
name = "reviewer"
kind = "sim"
command = ` + tomlArray(benchReviewer) + `

[workflow]
kind = "loop"
max_iterations = 100
coder = "coder"
reviewer = "reviewer"
judge = "command"
judge_command = ` + tomlArray(benchJudge) + `
`

// tomlArray writes words as a TOML array of basic strings (a Go quoted
// string is one for plain ASCII).
func tomlArray(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = strconv.Quote(w)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// BenchmarkLoop100Iterations runs a loop of 100 iterations (coder,
// reviewer, judge command: 300 process starts) through the real
// controller. Goals: under 3 s of wall time, and under 5 ms per iteration
// of loop machinery beyond the agents' own time. The agents' time is the
// three processes' own wall time, from their fork to their exit as
// time(1) measures it: the workers' (STEP_COMPLETED's process_us) and
// the judge command's (ITERATION_FINISHED's judge_process_us); preparing
// the workers' artifact files, draining their output, writing each
// step's end and everything else counts as machinery (the fsyncs of a
// step's end and logs run beside the next step: see
// controller.recordWritten). strict-overhead counts the whole judge
// command as machinery too.
//
// floor is the same 300 processes run one after the other by the
// benchmark itself, with nothing around them: the wall time no
// controller can beat on this machine, measured in the same run, so that
// wall/floor compares across machines whose process starts differ.
//
// disk puts the root in the test's temporary folder, as a person's
// project is; tmpfs puts it in memory (/dev/shm), where an fsync costs
// nothing, so that the two together tell the controller's own time from
// the disk's latency.
func BenchmarkLoop100Iterations(b *testing.B) {
	b.Run("disk", func(b *testing.B) { benchLoop(b, b.TempDir) })
	b.Run("tmpfs", func(b *testing.B) {
		dir := memoryDir(b)
		benchLoop(b, func() string {
			root, err := os.MkdirTemp(dir, "daokit-loop-")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = os.RemoveAll(root) })
			return root
		})
	})
}

// memoryDir is /dev/shm when it is a tmpfs, else the benchmark is
// skipped with the reason.
func memoryDir(b *testing.B) string {
	const dir = "/dev/shm"
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		b.Skipf("no memory file system: %v", err)
	}
	if fs.Type != unix.TMPFS_MAGIC {
		b.Skipf("%s is not a tmpfs (type %#x)", dir, fs.Type)
	}
	return dir
}

// benchLoop runs BenchmarkLoop100Iterations in roots made by folder.
func benchLoop(b *testing.B, folder func() string) {
	for i := 0; i < b.N; i++ {
		root := newRootIn(b, folder(), benchLoopConfig)
		ctl := startController(b, root)
		// send --wait follows the log by offset; polling the whole log
		// here would take the CPU the controller is measured on.
		r := run(b, "send", "--root", root, "--wait", benchInstruction)
		b.StopTimer()
		var received, ended ledger.Event
		var agents, judges time.Duration
		steps := 0
		for _, e := range events(b, root) {
			switch {
			case op(e) == "INSTRUCTION_RECEIVED":
				received = e
			case op(e) == "RUN_FINISHED":
				ended = e
			case e.EventType == ledger.EventStepCompleted:
				agents += time.Duration(payloadInt(e, "process_us")) * time.Microsecond
				steps++
			case op(e) == "ITERATION_FINISHED":
				judges += time.Duration(payloadInt(e, "judge_process_us")) * time.Microsecond
			}
		}
		ctl.stop()
		if ended.Payload.String("reason_code") != "MAX_ITERATIONS_REACHED" || steps != 200 {
			b.Fatalf("run ended %v after %d agent steps, want MAX_ITERATIONS_REACHED after 200\n%s", ended.Payload, steps, r.stderr)
		}
		from, _ := ledger.ParseTime(received.Timestamp)
		to, _ := ledger.ParseTime(ended.Timestamp)
		wall := to.Sub(from)
		b.ReportMetric(wall.Seconds(), "wall-s/100-iterations")
		b.ReportMetric(float64((wall-agents-judges).Microseconds())/1000/100, "overhead-ms/iteration")
		b.ReportMetric(float64((wall-agents).Microseconds())/1000/100, "strict-overhead-ms/iteration")
		floor := agentsAlone(b, root)
		b.ReportMetric(floor.Seconds(), "floor-s/100-iterations")
		b.ReportMetric(wall.Seconds()/floor.Seconds(), "wall/floor")
		b.StartTimer()
	}
}

// agentsAlone runs the loop's 100 iterations of processes one after the
// other in root, each to its end, and returns how long that took.
func agentsAlone(b *testing.B, root string) time.Duration {
	b.Helper()
	r := strings.NewReplacer("{daokit}", daokit, "{instruction}", benchInstruction)
	var argvs [][]string
	for _, argv := range [][]string{benchCoder, benchReviewer, benchJudge} {
		words := make([]string, len(argv))
		for i, w := range argv {
			words[i] = r.Replace(w)
		}
		argvs = append(argvs, words)
	}
	start := time.Now()
	for range 100 {
		for _, argv := range argvs {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = root
			var exit *exec.ExitError
			if err := cmd.Run(); err != nil && !errors.As(err, &exit) {
				b.Fatalf("%v: %v", argv, err)
			}
		}
	}
	return time.Since(start)
}
