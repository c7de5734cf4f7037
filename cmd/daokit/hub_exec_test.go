package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDaokitDoesNotLinkTheHub: no package daokit builds from imports the
// NATS server, whose inits wake every second and load memory in every
// daokit process (the window, the controller, each Lead and Worker);
// only daokit-hub links it.
func TestDaokitDoesNotLinkTheHub(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/daokit/daokit/cmd/daokit").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v: %s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/nats-io/nats-server/") || pkg == "github.com/daokit/daokit/hub" {
			t.Errorf("daokit links %s: only cmd/daokit-hub may", pkg)
		}
	}
	hub, err := exec.Command("go", "list", "-deps", "github.com/daokit/daokit/cmd/daokit-hub").CombinedOutput()
	if err != nil || !strings.Contains(string(hub), "github.com/nats-io/nats-server/v2/server\n") {
		t.Errorf("daokit-hub does not link the server: %v: %s", err, hub)
	}
}

// TestHubWithoutDaokitHubSaysWhereItLooked: with no daokit-hub beside
// daokit nor on PATH, `daokit hub` fails with E_HUB_UNAVAILABLE, saying
// where it looked and how to get it, in the reader's language.
func TestHubWithoutDaokitHubSaysWhereItLooked(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string]string{
		"en":    "E_HUB_UNAVAILABLE: daokit-hub, the program that runs the hub, is neither at ",
		"zh-CN": "E_HUB_UNAVAILABLE: 找不到运行 hub 的程序 daokit-hub：既不在 ",
	} {
		r := runCLI(t, map[string]string{"PATH": t.TempDir()}, "hub", "--lang", lang, "--listen", "127.0.0.1:0")
		if r.code != exitFailure || !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, "/daokit-hub") || r.stdout != "" {
			t.Errorf("%s: code %d stdout %q stderr %q; want stderr starting %q", lang, r.code, r.stdout, r.stderr, want)
		}
	}
}

// TestHubArgsAreWhatWasParsed: daokit-hub gets the flags a person set,
// prefixes expanded, as --name=value, and the language daokit resolved;
// the others keep daokit-hub's defaults.
func TestHubArgsAreWhatWasParsed(t *testing.T) {
	t.Parallel()
	a := &app{}
	c := newHubCmd(a)
	if err := c.ParseFlags([]string{"--listen", "0.0.0.0:4222", "--anonymous", "--data=/d"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(hubArgs(c, "zh-CN"), " ")
	if want := "--lang=zh-CN --anonymous=true --data=/d --listen=0.0.0.0:4222"; got != want {
		t.Errorf("hubArgs = %q, want %q", got, want)
	}
}
