package main

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/relay"
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
	// A live controller is the ledger's only writer: it carries the
	// handoff out, and the CLI only reads and checks what it forwards.
	ctl := liveController(dir)
	var store *ledger.Store
	if ctl.Live() {
		if err := a.forwardable(dir, "E_HANDOFF_FAILED"); err != nil {
			return err
		}
	} else {
		if store, err = a.openWriter(dir, "E_HANDOFF_FAILED"); err != nil {
			return err
		}
		defer store.Close()
	}
	p, _, err := a.loadPipeline(dir, "E_HANDOFF_FAILED")
	if err != nil {
		return err
	}
	if o.apply {
		if store == nil {
			return a.forwardApply(dir, ctl, p, path, o.includeAccepted)
		}
		return a.applyHandoff(store, p, path, o.includeAccepted)
	}
	layout := ledger.Layout{Root: dir}
	if filepath.Dir(path) != layout.StateDir() {
		return failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.outside_state", "Path", path, "State", layout.StateDir()))
	}
	opts := heal.HandoffOptions{IncludeAcceptedSteps: o.includeAccepted}
	if len(o.evidence) > 0 {
		opts.EvidencePaths = o.evidence
	}
	if store == nil {
		return a.forward(dir, "E_HANDOFF_FAILED", ctl, relay.Operation{Kind: relay.OperateHandoffCreate,
			PackageFile: filepath.Base(path), IncludeAccepted: o.includeAccepted, EvidencePaths: opts.EvidencePaths})
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
	_, plan, err := a.checkHandoff(&p, path, includeAccepted)
	if err != nil {
		return err
	}
	if err := store.Commit(ledger.Changes{Pipeline: &p, Node: ledger.NodeHandoffApply}); err != nil {
		return failf("E_HANDOFF_FAILED", a.commitProblem(err))
	}
	plan.PackagePath = filepath.ToSlash(path)
	return a.writeJSON(plan.Object())
}

// forwardApply has ctl, the live controller, apply the package at path:
// the CLI reads it and applies it to a copy of the pipeline it read,
// so that a package that cannot apply fails in the words of the local
// command, and the controller applies it to the ledger it keeps.
func (a *app) forwardApply(dir string, ctl liveness.Controller, p ledger.PipelineState, path string, includeAccepted bool) error {
	data, _, err := a.checkHandoff(&p, path, includeAccepted)
	if err != nil {
		return err
	}
	return a.forward(dir, "E_HANDOFF_FAILED", ctl, relay.Operation{Kind: relay.OperateHandoffApply,
		Package: data, PackagePath: filepath.ToSlash(path), IncludeAccepted: includeAccepted})
}

// checkHandoff reads the package at path and applies it to p, failing
// as `daokit handoff --apply` does; data is the package as read.
func (a *app) checkHandoff(p *ledger.PipelineState, path string, includeAccepted bool) ([]byte, heal.ResumePlan, error) {
	data, err := ledger.ReadFile(path, ledger.MaxDocumentBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, heal.ResumePlan{}, failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.missing", "Path", path))
	}
	if err != nil {
		return nil, heal.ResumePlan{}, failf("E_HANDOFF_FAILED", a.fileProblem(path, err))
	}
	pkg, err := ledger.ParseHandoffPackage(data)
	if err != nil {
		return nil, heal.ResumePlan{}, failf("E_HANDOFF_FAILED", a.fileProblem(path, err))
	}
	plan, err := heal.ApplyHandoff(p, pkg, includeAccepted, time.Now())
	var mismatch *heal.MismatchError
	switch {
	case errors.As(err, &mismatch):
		return nil, heal.ResumePlan{}, failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.mismatch", "Field", mismatch.Field, "Ledger", mismatch.Ledger, "Package", mismatch.Handed))
	case err != nil:
		return nil, heal.ResumePlan{}, failf("E_HANDOFF_FAILED", a.fileProblem(path, err))
	}
	return data, plan, nil
}
