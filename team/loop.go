package team

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/daokit/daokit/config"
)

// A role's workflow (workflow): how its Lead works an issue. The names
// and the loop's settings are daokit.toml's [workflow] ones (config), so
// that a loop reads the same in both files.
const (
	// FlowSingle is one Worker per issue, the role's worker (the default).
	FlowSingle = string(config.FlowSingle)
	// FlowLoop works the issue with the loop of the workflow package:
	// the coder lane, then the reviewer lane, until the judge says done,
	// at most max_iterations times.
	FlowLoop = string(config.FlowLoop)
)

// Flows are the values a role's workflow may take.
func Flows() []string { return []string{FlowSingle, FlowLoop} }

// Lane is one [roles.<role>.lanes.<name>] section: an agent of the
// role's loop, run as a Worker is (guarded, in the worktree).
type Lane struct {
	Name string
	// Worker is the agent's command line (the role worker's
	// placeholders); empty: the simulated agent.
	Worker []string
	// Kind is how its output is read: command, claude or codex.
	Kind string
}

// Loop is a role's loop: which lanes code, review and judge, how the
// judge decides, and how many iterations it may take.
type Loop struct {
	Lanes map[string]Lane
	// Coder and Reviewer name lanes; Judge is config.JudgeReviewerApproved
	// (the default), config.JudgeCommand (JudgeCommand exits 0, run in
	// the worktree) or config.JudgeAgent (the lane JudgeLane).
	Coder, Reviewer, Judge string
	JudgeCommand           []string
	JudgeLane              string
	// MaxIterations bounds the loop (config.DefaultMaxIterations when
	// not set); the issue fails when it is reached without done.
	MaxIterations int
}

type rawLane struct {
	Worker []string `toml:"worker"`
	Kind   string   `toml:"kind"`
}

// rawLoop is the loop's part of a [roles.<name>] section.
type rawLoop struct {
	Workflow      string             `toml:"workflow"`
	Coder         string             `toml:"coder"`
	Reviewer      string             `toml:"reviewer"`
	Judge         string             `toml:"judge"`
	JudgeCommand  []string           `toml:"judge_command"`
	JudgeLane     string             `toml:"judge_lane"`
	MaxIterations *int64             `toml:"max_iterations"`
	Lanes         map[string]rawLane `toml:"lanes"`
}

// parseLoop checks role name's workflow and, for a loop, its lanes and
// judge, reporting every problem; it returns nil for a one-Worker role.
func parseLoop(name string, r rawLoop, add func(*Error)) *Loop {
	key := "roles." + name + "."
	switch r.Workflow {
	case "", FlowSingle:
		// The loop's settings mean nothing here: said, not ignored.
		set := map[string]bool{"coder": r.Coder != "", "reviewer": r.Reviewer != "", "judge": r.Judge != "",
			"judge_command": len(r.JudgeCommand) > 0, "judge_lane": r.JudgeLane != "", "max_iterations": r.MaxIterations != nil, "lanes": len(r.Lanes) > 0}
		for _, k := range slices.Sorted(maps.Keys(set)) {
			if set[k] {
				add(&Error{Code: CodeLoopOnly, Key: key + k, Want: FlowLoop})
			}
		}
		return nil
	case FlowLoop:
	default:
		add(&Error{Code: CodeFlow, Key: key + "workflow", Value: strconv.Quote(r.Workflow), Want: strings.Join(Flows(), ", ")})
		return nil
	}
	lp := &Loop{Lanes: map[string]Lane{}, Coder: r.Coder, Reviewer: r.Reviewer, Judge: r.Judge, JudgeCommand: r.JudgeCommand,
		JudgeLane: r.JudgeLane, MaxIterations: config.DefaultMaxIterations}
	for _, ln := range slices.Sorted(maps.Keys(r.Lanes)) {
		l := r.Lanes[ln]
		if !validName(ln) {
			add(&Error{Code: CodeName, Key: key + "lanes", Value: strconv.Quote(ln)})
			continue
		}
		if l.Kind != "" && !slices.Contains(WorkerKinds(), l.Kind) {
			add(&Error{Code: CodeKind, Key: key + "lanes." + ln + ".kind", Value: strconv.Quote(l.Kind), Want: strings.Join(WorkerKinds(), ", ")})
		}
		lp.Lanes[ln] = Lane{Name: ln, Worker: l.Worker, Kind: l.Kind}
	}
	lanes := strings.Join(slices.Sorted(maps.Keys(lp.Lanes)), ", ")
	if lanes == "" {
		lanes = "-"
	}
	lane := func(k, v string) {
		if _, ok := lp.Lanes[v]; !ok {
			value := strconv.Quote(v)
			if v == "" {
				value = "-"
			}
			add(&Error{Code: CodeLane, Key: key + k, Value: value, Want: lanes})
		}
	}
	lane("coder", lp.Coder)
	lane("reviewer", lp.Reviewer)
	if lp.Judge == "" {
		lp.Judge = config.JudgeReviewerApproved
	}
	switch lp.Judge {
	case config.JudgeReviewerApproved:
	case config.JudgeCommand:
		if len(lp.JudgeCommand) == 0 {
			add(&Error{Code: CodeJudge, Key: key + "judge_command", Value: "-", Want: config.JudgeCommand})
		}
	case config.JudgeAgent:
		lane("judge_lane", lp.JudgeLane)
	default:
		add(&Error{Code: CodeJudge, Key: key + "judge", Value: strconv.Quote(lp.Judge), Want: strings.Join(config.JudgeKinds(), ", ")})
	}
	if r.MaxIterations != nil {
		n := *r.MaxIterations
		if n < 1 || n > config.MaxMaxIterations {
			add(&Error{Code: CodeIterations, Key: key + "max_iterations", Value: strconv.FormatInt(n, 10), Want: fmt.Sprintf("1–%d", config.MaxMaxIterations)})
		}
		lp.MaxIterations = int(n)
	}
	return lp
}
