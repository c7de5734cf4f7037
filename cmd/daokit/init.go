package main

import (
	"errors"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

func newInitCmd(a *app) *cobra.Command {
	var root *string
	c := a.command("init", "cli.init.summary", func(*cobra.Command, []string) error { return a.runInit(*root) })
	root = rootFlag(c.Flags())
	return c
}

func (a *app) runInit(root string) error {
	res, err := ledger.Init(root, time.Now())
	if err != nil {
		return failf("E_INIT_FAILED", a.initProblem(err))
	}
	a.println(a.t("cli.init.done", "Root", res.Root))
	if len(res.Created) > 0 {
		a.println(a.t("cli.init.created"))
		for _, p := range res.Created {
			a.printf("  + %s\n", p)
		}
	}
	if len(res.Unchanged) > 0 {
		a.println(a.t("cli.init.unchanged"))
		for _, p := range res.Unchanged {
			a.printf("  = %s\n", p)
		}
	}
	return nil
}

func (a *app) initProblem(err error) string {
	var ie *ledger.InitError
	if !errors.As(err, &ie) {
		return err.Error()
	}
	switch {
	case errors.Is(err, ledger.ErrRootNotDirectory):
		return a.t("cli.init.error.root_not_dir", "Path", ie.Path)
	case errors.Is(err, ledger.ErrExpectedDirectory):
		return a.t("cli.init.error.expected_dir", "Path", ie.Path)
	case errors.Is(err, ledger.ErrExpectedFile):
		return a.t("cli.init.error.expected_file", "Path", ie.Path)
	}
	return a.t("cli.file.unreadable", "Path", ie.Path, "Reason", errors.Unwrap(err).Error())
}
