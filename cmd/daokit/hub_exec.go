package main

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// hubProgram is the binary that holds the NATS server. daokit itself
// never links it: the server's package inits start a /proc sampler that
// wakes every second and load about 10 MB, in every daokit process (the
// window, the controller, each Lead and Worker), and only `daokit hub`
// needs them (issues 26 and 31; TestDaokitDoesNotLinkTheHub).
const hubProgram = "daokit-hub"

// runHub replaces this process with daokit-hub, given the flags as
// parsed here: exec, not a child, so the hub keeps daokit's pid, gets
// its signals straight from whoever sends them (a service manager's
// SIGTERM, Ctrl-C) and its exit code is the command's.
func (a *app) runHub(c *cobra.Command, _ hubFlags) error { return a.execHub(c) }

// runHubCreds is `daokit hub creds`, which daokit-hub carries out too:
// issuing a key writes the hub's own registry of keys.
func (a *app) runHubCreds(c *cobra.Command, _ hubCredsFlags) error { return a.execHub(c, "creds") }

// execHub replaces this process with daokit-hub, running its command
// sub (none: serve) with c's flags.
func (a *app) execHub(c *cobra.Command, sub ...string) error {
	path, ok := a.findHubProgram()
	if !ok {
		return failf("E_HUB_UNAVAILABLE", a.t("hub.cli.error.missing", "Beside", a.besideSelf(hubProgram)))
	}
	argv := append(append([]string{path}, sub...), hubArgs(c, a.loc.Lang())...)
	err := syscall.Exec(path, argv, os.Environ())
	// Only a failed exec returns (not executable, a bad file format).
	return failf("E_HUB_UNAVAILABLE", path+": "+err.Error())
}

// hubArgs are the flags of c (hub's own) a person set, each as --name=value (prefixes
// already expanded), and the language already resolved, so daokit-hub
// reads them exactly as daokit did; those left alone keep daokit-hub's
// defaults, which are the hub package's own.
func hubArgs(c *cobra.Command, lang string) []string {
	args := []string{"--lang=" + lang}
	own := c.LocalNonPersistentFlags()
	c.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "help" || own.Lookup(f.Name) == nil {
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}

// findHubProgram looks for daokit-hub beside this daokit first (what
// make build and a release install), then on PATH.
func (a *app) findHubProgram() (string, bool) {
	candidates := []string{a.besideSelf(hubProgram)}
	for _, dir := range filepath.SplitList(a.getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		candidates = append(candidates, filepath.Join(dir, hubProgram))
	}
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// besideSelf is name in the directory of the running daokit, symlinks
// resolved (a daokit linked into ~/bin finds the daokit-hub installed
// with it).
func (a *app) besideSelf(name string) string {
	self := a.self
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	return filepath.Join(filepath.Dir(self), name)
}
