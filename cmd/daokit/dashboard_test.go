package main

import (
	"net"
	"strings"
	"testing"
)

// TestDashboardServesLoopbackOnly: the page carries its token over plain
// HTTP, so a --host that is not this machine is a usage error, before
// anything listens.
func TestDashboardServesLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"0.0.0.0", "::", "192.0.2.1", "example.com"} {
		r := runCLI(t, nil, "dashboard", "--root", t.TempDir(), "--port", "0", "--host", host)
		want := "daokit dashboard: error: --host " + host + " is not a loopback address"
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
			t.Errorf("--host %s: code %d stdout %q stderr %q", host, r.code, r.stdout, r.stderr)
		}
	}
	for _, host := range []string{"127.0.0.1", "::1", "localhost", "127.0.0.2"} {
		if !isLoopback(host) {
			t.Errorf("%s refused", host)
		}
	}
}

// TestDashboardPortInUse: a port already taken is a failure that names
// it, with Python's error code.
func TestDashboardPortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	root := t.TempDir()
	if r := runCLI(t, nil, "init", "--root", root); r.code != exitOK {
		t.Fatal(r.stderr)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	r := runCLI(t, nil, "dashboard", "--root", root, "--port", port)
	if r.code != exitFailure || !strings.HasPrefix(r.stderr, "E_DASHBOARD_FAILED: cannot listen on 127.0.0.1:"+port) {
		t.Errorf("code %d stderr %q", r.code, r.stderr)
	}
}
