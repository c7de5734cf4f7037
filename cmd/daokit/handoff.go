package main

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
)

func init() {
	register(command{name: "handoff", summary: "cli.handoff.summary", run: runHandoff})
}

// stringList is a repeatable string flag (--evidence-path A --evidence-path B).
type stringList []string

func (s *stringList) String() string { return "" }

func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runHandoff(a *app, args []string) error {
	f := a.newFlags(command{name: "handoff", summary: "cli.handoff.summary"})
	root := f.root()
	create := f.Bool("create", false, "cli.handoff.flag.create")
	apply := f.Bool("apply", false, "cli.handoff.flag.apply")
	pkgPath := f.String("package-path", filepath.Join(ledger.StateDir, ledger.HandoffFile), "cli.handoff.flag.package_path")
	includeAccepted := f.Bool("include-accepted-steps", false, "cli.handoff.flag.include_accepted")
	var evidence stringList
	f.Var(&evidence, "evidence-path", "cli.handoff.flag.evidence_path")
	if err := f.parse(args); err != nil {
		return err
	}
	if *create && *apply {
		return usageError(a.t("cli.error.usage", "Command", "handoff", "Detail", a.t("cli.handoff.error.both")))
	}
	dir, err := absRoot(*root)
	if err != nil {
		return failf("E_HANDOFF_FAILED", err.Error())
	}
	path := *pkgPath
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
	if *apply {
		return a.applyHandoff(store, p, path, *includeAccepted)
	}
	if filepath.Dir(path) != store.Layout().StateDir() {
		return failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.outside_state", "Path", path, "State", store.Layout().StateDir()))
	}
	opts := heal.HandoffOptions{IncludeAcceptedSteps: *includeAccepted}
	if len(evidence) > 0 {
		opts.EvidencePaths = evidence
	}
	pkg, err := heal.CreateHandoff(&p, time.Now(), opts)
	if errors.Is(err, heal.ErrNoTask) {
		return failf("E_HANDOFF_FAILED", a.t("cli.handoff.error.no_task"))
	}
	if err != nil {
		return failf("E_HANDOFF_FAILED", err.Error())
	}
	if err := store.WriteDocument(filepath.Base(path), pkg); err != nil {
		return failf("E_HANDOFF_FAILED", err.Error())
	}
	return a.writeJSON(pkg)
}

func (a *app) applyHandoff(store *ledger.Store, p ledger.PipelineState, path string, includeAccepted bool) error {
	data, err := os.ReadFile(path)
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
	if _, err := store.WritePipeline(p); err != nil {
		return failf("E_HANDOFF_FAILED", err.Error())
	}
	plan.PackagePath = filepath.ToSlash(path)
	return a.writeJSON(plan)
}
