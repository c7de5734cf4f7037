package main

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

// handoffFlags are handoff's options.
type handoffFlags struct {
	root, pkgPath                  string
	create, apply, includeAccepted bool
	evidence                       []string
}

func newHandoffCmd(a *app) *cobra.Command {
	var o handoffFlags
	c := a.command("handoff", "cli.handoff.summary", nil)
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "cli.flag.root")
	f.BoolVar(&o.create, "create", false, "cli.handoff.flag.create")
	f.BoolVar(&o.apply, "apply", false, "cli.handoff.flag.apply")
	f.StringVar(&o.pkgPath, "package-path", filepath.Join(ledger.StateDir, ledger.HandoffFile), "cli.handoff.flag.package_path")
	f.BoolVar(&o.includeAccepted, "include-accepted-steps", false, "cli.handoff.flag.include_accepted")
	// StringArray, not StringSlice: a path may hold a comma.
	f.StringArrayVar(&o.evidence, "evidence-path", nil, "cli.handoff.flag.evidence_path")
	c.RunE = func(c *cobra.Command, _ []string) error {
		if o.create && o.apply {
			return a.usage(c, a.t("cli.handoff.error.both"))
		}
		return a.runHandoff(o)
	}
	return c
}

func (a *app) runHandoff(o handoffFlags) error {
	dir, err := absRoot(o.root)
	if err != nil {
		return failf("E_HANDOFF_FAILED", err.Error())
	}
	path := o.pkgPath
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	store, err := a.openWriter(dir, "E_HANDOFF_FAILED")
	if err != nil {
		return err
	}
	defer store.Close()
	p, _, err := a.loadPipeline(dir, "E_HANDOFF_FAILED")
	if err != nil {
		return err
	}
	if o.apply {
		return a.applyHandoff(store, p, path, o.includeAccepted)
	}
	if filepath.Dir(path) != store.Layout().StateDir() {
		return failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.outside_state", "Path", path, "State", store.Layout().StateDir()))
	}
	opts := heal.HandoffOptions{IncludeAcceptedSteps: o.includeAccepted}
	if len(o.evidence) > 0 {
		opts.EvidencePaths = o.evidence
	}
	pkg, err := heal.CreateHandoff(&p, time.Now(), opts)
	if errors.Is(err, heal.ErrNoTask) {
		return failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.no_task"))
	}
	if err != nil {
		return failf("E_HANDOFF_FAILED", err.Error())
	}
	if err := store.WriteDocument(filepath.Base(path), pkg); err != nil {
		return failf("E_HANDOFF_FAILED", a.commitProblem(err))
	}
	return a.writeJSON(pkg)
}

func (a *app) applyHandoff(store *ledger.Store, p ledger.PipelineState, path string, includeAccepted bool) error {
	data, err := ledger.ReadFile(path, ledger.MaxDocumentBytes)
	if errors.Is(err, os.ErrNotExist) {
		return failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.missing", "Path", path))
	}
	if err != nil {
		return failf("E_HANDOFF_FAILED", a.fileProblem(path, err))
	}
	pkg, err := ledger.ParseHandoffPackage(data)
	if err != nil {
		return failf("E_HANDOFF_FAILED", a.fileProblem(path, err))
	}
	plan, err := heal.ApplyHandoff(&p, pkg, includeAccepted, time.Now())
	var mismatch *heal.MismatchError
	switch {
	case errors.As(err, &mismatch):
		return failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.mismatch", "Field", mismatch.Field, "Ledger", mismatch.Ledger, "Package", mismatch.Handed))
	case err != nil:
		return failf("E_HANDOFF_FAILED", a.fileProblem(path, err))
	}
	if err := store.Commit(ledger.Changes{Pipeline: &p, Node: ledger.NodeHandoffApply}); err != nil {
		return failf("E_HANDOFF_FAILED", a.commitProblem(err))
	}
	plan.PackagePath = filepath.ToSlash(path)
	return a.writeJSON(planJSON(plan))
}

// planJSON is the resume plan as the Python tool prints it: no resume
// step is null, empty lists are [].
func planJSON(p heal.ResumePlan) ledger.Object {
	var resume any
	if p.ResumeStepID != "" {
		resume = p.ResumeStepID
	}
	items := p.OpenAcceptanceItems
	if items == nil {
		items = []ledger.AcceptanceItem{}
	}
	return ledger.ObjectOf("task_id", p.TaskID, "run_id", p.RunID, "resume_step_id", resume,
		"resumable_step_ids", nonNilStrings(p.ResumableStepIDs), "skipped_step_ids", nonNilStrings(p.SkippedStepIDs),
		"open_acceptance_items", items, "next_action", p.NextAction, "package_path", p.PackagePath, "loaded_at", p.LoadedAt)
}
