package controller

import (
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/ledger"
)

// treeWindow is how many of the newest lines RecordedTrees reads: the
// cost of `daokit diff` and `daokit status` must not grow with the
// ledger's history. Only the lines naming WORKTREE_READY are decoded.
const treeWindow = 50000

// StepTree is a step's worktree as the ledger recorded it
// (WORKTREE_READY).
type StepTree struct {
	TaskID, RunID, StepID string
	// Path is the worktree; Dir where the worker ran inside it.
	Path, Dir string
	// Branch is the step's branch; Base the commit it started from;
	// BaseBranch the branch it merges into; Repo the repository's top.
	Branch, Base, BaseBranch, Repo string
}

// Entry is the worktree as gitwork lists it.
func (t StepTree) Entry() gitwork.Entry { return gitwork.Entry{Path: t.Path, Branch: t.Branch} }

// RecordedTrees returns the step worktrees recorded in the newest events
// of root's ledger, one per step (its latest record), in the order the
// steps first got one.
func RecordedTrees(root string) ([]StepTree, error) {
	tail, err := ledger.TailMatching(ledger.Layout{Root: root}.Events(), treeWindow, []byte(OpWorktreeReady))
	if err != nil {
		return nil, err
	}
	var out []StepTree
	at := map[[3]string]int{}
	for _, e := range tail.Events {
		if e.EventType != ledger.EventSystem || e.Payload.String("operation") != OpWorktreeReady {
			continue
		}
		p := e.Payload
		t := StepTree{TaskID: e.TaskID, RunID: e.RunID, StepID: e.StepID, Path: p.String("path"), Dir: p.String("dir"),
			Branch: p.String("branch"), Base: p.String("base"), BaseBranch: p.String("base_branch"), Repo: p.String("repo")}
		key := [3]string{t.TaskID, t.RunID, t.StepID}
		if i, ok := at[key]; ok {
			out[i] = t
			continue
		}
		at[key] = len(out)
		out = append(out, t)
	}
	return out, nil
}
