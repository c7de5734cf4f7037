package worker

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/i18n"

	"github.com/daokit/daokit/worker/transcript"
)

// SimOptions configure RunSim. The zero value (apart from Instruction) is
// an instant, successful run of DefaultSimLines progress lines.
type SimOptions struct {
	// Instruction is what the simulated agent was asked to do; with Seed
	// it decides every line the simulation prints.
	Instruction string
	Seed        uint64
	// Duration is the time a normal run takes, spread evenly over its
	// lines; 0 prints everything at once.
	Duration time.Duration
	// Lines is the number of progress lines; 0 means DefaultSimLines.
	Lines int
	// Hang stops all output after HangAfter progress lines (half of Lines
	// when 0) and stays alive until cancelled: a hung agent.
	Hang      bool
	HangAfter int
	// Silent prints nothing at all and stays alive until cancelled.
	Silent bool
	// Crash ends the run abruptly after CrashAfter progress lines (half of
	// Lines when 0): a last line cut off mid-way, no result, and exit code
	// ExitCode, or SimCrashCode when ExitCode is 0.
	Crash      bool
	CrashAfter int
	// ExitCode is the exit code of a run that finishes; non-zero makes
	// the simulated tests fail and the result report failure.
	ExitCode int
	// FloodLines and FloodFor turn the run into a flood of plain lines,
	// ending after FloodLines lines or FloodFor, whichever comes first
	// (0 means no bound of that kind). FloodRate paces it in lines per
	// second; 0 means as fast as possible.
	FloodLines int
	FloodFor   time.Duration
	FloodRate  int
	// Role is SimRoleCoder (the default) or SimRoleReviewer: a reviewer
	// reads, lists findings and ends with a verdict line.
	Role string
	// Iteration is the loop iteration the run belongs to (the
	// controller's DAOKIT_ITERATION); 0 means 1.
	Iteration int
	// ApproveAt is the first iteration a reviewer approves
	// (DefaultSimApproveAt when 0); NeverApprove makes it request changes
	// every time (the max_iterations drill); Escalate makes it hand the
	// run to a person.
	ApproveAt    int
	NeverApprove bool
	Escalate     bool
	// Loc renders the text a person reads; nil means English.
	Loc *i18n.Localizer
	// EditDir, when set, makes the edits real: each edited file under
	// EditDir gets a deterministic change, left uncommitted as the real
	// agent CLIs leave theirs (EditDir must be in a git work tree: a
	// step's worktree).
	EditDir string
	// Commit makes a run that finishes commit its edits, on whatever HEAD
	// the worktree has (a detached one included): an agent that commits
	// on its own, which real ones do only when told to.
	Commit bool
}

// Defaults and exit codes of the simulated worker.
const (
	DefaultSimLines    = 8
	DefaultSimDuration = 3 * time.Second
	// SimCrashCode is the exit code of a crash (EX_SOFTWARE).
	SimCrashCode = 70
	// SimCancelledCode is the exit code when the simulation is cancelled
	// (as by Ctrl-C).
	SimCancelledCode = 130
	// simHeartbeatEvery is the longest silence between lines of a paced
	// run: longer pauses are filled with heartbeats.
	simHeartbeatEvery = time.Second
)

// RunSim runs the simulated coding agent: it "reads", "edits" and "tests"
// made-up files of a made-up project, speaking the worker protocol on
// stdout, and returns the process exit code. The lines printed depend only
// on the options (not on timing), so a test can compare them byte for
// byte. Cancelling ctx ends the run with SimCancelledCode.
func RunSim(ctx context.Context, o SimOptions, stdout, stderr io.Writer) int {
	if o.Loc == nil {
		o.Loc = i18n.MustNew(i18n.English)
	}
	if o.Lines <= 0 {
		o.Lines = DefaultSimLines
	}
	s := &simRun{ctx: ctx, o: o, out: stdout, errw: stderr}
	return s.run()
}

// simRun is one run of the simulation.
type simRun struct {
	ctx  context.Context
	o    SimOptions
	out  io.Writer
	errw io.Writer
	err  error
}

// errSimCancelled is returned by pause when the context ends.
var errSimCancelled = errors.New("sim: cancelled")

func (s *simRun) run() int {
	if s.o.Silent {
		return s.hangUntilCancelled()
	}
	sc := newSimScript(s.o)
	s.event(transcript.Event{Type: transcript.EventSession, ID: sc.session})
	s.event(transcript.Event{Type: transcript.EventHeartbeat})
	if s.o.FloodLines > 0 || s.o.FloodFor > 0 {
		return s.flood(sc)
	}
	if s.o.Role == SimRoleReviewer {
		return s.review(sc)
	}
	stopAt := s.o.Lines
	switch {
	case s.o.Hang:
		stopAt = orHalf(s.o.HangAfter, s.o.Lines)
	case s.o.Crash:
		stopAt = orHalf(s.o.CrashAfter, s.o.Lines)
	}
	gap := s.o.Duration / time.Duration(s.o.Lines+1)
	for i := 0; i < min(stopAt, s.o.Lines); i++ {
		if err := s.pause(gap); err != nil {
			return SimCancelledCode
		}
		for _, line := range sc.beat(i, s.o.Loc) {
			s.write(s.out, line)
		}
		if err := s.editFor(sc, i); err != nil {
			s.event(transcript.Event{Type: transcript.EventError, Text: err.Error()})
			return 1
		}
		if s.err != nil {
			return 1
		}
	}
	switch {
	case s.o.Hang:
		return s.hangUntilCancelled()
	case s.o.Crash:
		return s.crash(stopAt)
	}
	if err := s.pause(gap); err != nil {
		return SimCancelledCode
	}
	return s.finish(sc)
}

// editFor makes progress line i's edit real, when it is an edit and the
// run edits for real.
func (s *simRun) editFor(sc *simScript, i int) error {
	if s.o.EditDir == "" || i == 0 {
		return nil
	}
	round, phase := (i-1)/7, (i-1)%7
	switch phase {
	case 3:
		return simEdit(s.o.EditDir, sc.file(2*round), sc.title, round)
	case 4:
		return simEdit(s.o.EditDir, sc.file(2*round+1), sc.title, round)
	}
	return nil
}

// orHalf returns n, or half of lines when n is not set.
func orHalf(n, lines int) int {
	if n > 0 {
		return n
	}
	return lines / 2
}

func (s *simRun) finish(sc *simScript) int {
	loc := s.o.Loc
	if s.o.ExitCode != 0 {
		s.event(transcript.Event{Type: transcript.EventError, Text: loc.T("worker.sim.failed", "Code", s.o.ExitCode)})
		s.event(transcript.Event{Type: transcript.EventResult, Failed: true, Text: loc.T("worker.sim.summary_failed", "Instruction", sc.title)})
		return s.o.ExitCode
	}
	if s.o.EditDir != "" && s.o.Commit {
		if err := simCommit(s.ctx, s.o.EditDir, sc.title); err != nil {
			s.event(transcript.Event{Type: transcript.EventError, Text: err.Error()})
			return 1
		}
	}
	s.event(transcript.Event{Type: transcript.EventMessage, Text: loc.T("worker.sim.done", "Files", len(sc.edited))})
	s.event(transcript.Event{Type: transcript.EventResult, Text: loc.T("worker.sim.summary", "Files", len(sc.edited), "Instruction", sc.title)})
	if s.err != nil {
		return 1
	}
	return 0
}

// crash ends abruptly: a line on stderr, and half a protocol line on
// stdout that never gets its newline.
func (s *simRun) crash(after int) int {
	s.write(s.errw, s.o.Loc.T("worker.sim.crash", "Lines", after))
	torn := transcript.FormatLine(transcript.Event{Type: transcript.EventProgress, Text: s.o.Loc.T("worker.sim.reading", "File", "go.sum")})
	_, _ = io.WriteString(s.out, torn[:len(torn)/2])
	code := s.o.ExitCode
	if code == 0 {
		code = SimCrashCode
	}
	return code
}

func (s *simRun) hangUntilCancelled() int {
	<-s.ctx.Done()
	return SimCancelledCode
}

// pause waits d, filling long waits with heartbeats.
func (s *simRun) pause(d time.Duration) error {
	for d > 0 {
		step := min(d, simHeartbeatEvery)
		t := time.NewTimer(step)
		select {
		case <-s.ctx.Done():
			t.Stop()
			return errSimCancelled
		case <-t.C:
		}
		d -= step
		if d > 0 {
			s.event(transcript.Event{Type: transcript.EventHeartbeat})
		}
	}
	return s.ctx.Err()
}

func (s *simRun) event(ev transcript.Event) { s.write(s.out, transcript.FormatLine(ev)) }

func (s *simRun) write(w io.Writer, line string) {
	if s.err != nil {
		return
	}
	_, s.err = io.WriteString(w, line+"\n")
}

// flood prints plain lines as fast as allowed, through a buffer flushed
// every batch, then the result.
func (s *simRun) flood(sc *simScript) int {
	// The catalog text is rendered once with a marker in place of the
	// number: rendering a template per line would cap the rate.
	const marker = "\x00"
	prefix, suffix, _ := strings.Cut(s.o.Loc.T("worker.sim.flood", "N", marker, "Instruction", sc.title), marker)
	bw := bufio.NewWriterSize(s.out, 64<<10)
	start := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	sent := 0
	var num []byte
	for {
		elapsed := time.Since(start)
		if (s.o.FloodLines > 0 && sent >= s.o.FloodLines) || (s.o.FloodFor > 0 && elapsed >= s.o.FloodFor) {
			break
		}
		due := 256
		if s.o.FloodRate > 0 {
			due = int(elapsed.Seconds()*float64(s.o.FloodRate)) + 1 - sent
		}
		if s.o.FloodLines > 0 {
			due = min(due, s.o.FloodLines-sent)
		}
		for range max(due, 0) {
			sent++
			num = strconv.AppendInt(num[:0], int64(sent), 10)
			bw.WriteString(prefix)
			bw.Write(num)
			bw.WriteString(suffix)
			bw.WriteByte('\n')
		}
		if err := bw.Flush(); err != nil {
			return 1
		}
		if s.o.FloodRate > 0 {
			select {
			case <-s.ctx.Done():
				return SimCancelledCode
			case <-tick.C:
			}
		} else if s.ctx.Err() != nil {
			return SimCancelledCode
		}
	}
	return s.finish(sc)
}
