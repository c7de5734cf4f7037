package relay

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// longRoot returns a root whose primary socket path does not fit in a
// socket address, with its state folder made.
func longRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), strings.Repeat("deep-", 12), "project")
	if err := os.MkdirAll(filepath.Join(root, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p := filepath.Join(root, "state", "run", "relay.sock"); fitsSunPath(p) {
		t.Fatalf("root %s is too short for this test", root)
	}
	return root
}

func TestPlanSocket(t *testing.T) {
	t.Parallel()
	short := shortDir(t)
	xdg := shortDir(t)
	tmp := shortDir(t)
	long := "/" + strings.Repeat("l", 120)
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name    string
		root    string
		env     map[string]string
		wantDir string
	}{
		{"short root", short, nil, filepath.Join(short, "state", "run")},
		{"long root, XDG", long, map[string]string{"XDG_RUNTIME_DIR": xdg, "TMPDIR": tmp}, filepath.Join(xdg, "daokit")},
		{"long root, XDG missing", long, map[string]string{"XDG_RUNTIME_DIR": "/nonexistent/run", "TMPDIR": tmp}, filepath.Join(tmp, "daokit-1000")},
		{"long root, XDG relative", long, map[string]string{"XDG_RUNTIME_DIR": "run", "TMPDIR": tmp}, filepath.Join(tmp, "daokit-1000")},
		{"long root, nothing set", long, nil, "/tmp/daokit-1000"},
		{"long root, TMPDIR long", long, map[string]string{"TMPDIR": "/" + strings.Repeat("t", 110)}, "/tmp/daokit-1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := planSocket(tt.root, env(tt.env), 1000)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(got) != tt.wantDir {
				t.Errorf("got %s, want a socket in %s", got, tt.wantDir)
			}
			if !fitsSunPath(got) {
				t.Errorf("got %s (%d bytes), want under %d", got, len(got), sunPathLen)
			}
		})
	}
	a, _ := planSocket(long, env(nil), 1000)
	b, _ := planSocket(long+"x", env(nil), 1000)
	if a == b {
		t.Errorf("two roots share fallback socket %s", a)
	}
	if again, _ := planSocket(long, env(nil), 1000); again != a {
		t.Errorf("fallback for one root changed: %s then %s", a, again)
	}
}

func TestListenPrimaryLayout(t *testing.T) {
	t.Parallel()
	root := shortDir(t)
	if err := os.Mkdir(filepath.Join(root, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(root)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := filepath.Join(root, "state", "run", "relay.sock")
	if got := l.Addr().String(); got != want {
		t.Errorf("socket at %s, want %s", got, want)
	}
	checkMode(t, filepath.Join(root, "state", "run"), fs.ModeDir|0o700)
	checkMode(t, want, fs.ModeSocket|0o600)
	checkMode(t, filepath.Join(root, "state", "run", "socket-path"), 0o600)
	if got, err := ResolveSocket(root); err != nil || got != want {
		t.Errorf("ResolveSocket = %s, %v; want %s", got, err, want)
	}
	// The ledger's own folder is left as it was.
	checkMode(t, filepath.Join(root, "state"), fs.ModeDir|0o755)
}

// TestListenLongRootFallback sets XDG_RUNTIME_DIR, so it cannot be parallel.
func TestListenLongRootFallback(t *testing.T) {
	xdg := shortDir(t)
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	root := longRoot(t)
	l, err := Listen(root)
	if err != nil {
		t.Fatal(err)
	}
	path := l.Addr().String()
	if filepath.Dir(path) != filepath.Join(xdg, "daokit") {
		t.Errorf("socket at %s, want it in %s/daokit", path, xdg)
	}
	checkMode(t, filepath.Join(xdg, "daokit"), fs.ModeDir|0o700)
	checkMode(t, path, fs.ModeSocket|0o600)

	// A client whose environment differs finds it through the record.
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got, err := ResolveSocket(root); err != nil || got != path {
		t.Errorf("ResolveSocket = %s, %v; want %s from the record", got, err, path)
	}
	h := newFakeHandler()
	s, err := NewServer(h, ServerConfig{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(testCtx(t), l) }()
	c, err := Dial(testCtx(t), root, ClientConfig{})
	if err != nil {
		t.Fatalf("Dial(root) = %v", err)
	}
	if _, err := c.Forward(testCtx(t), "via the fallback"); err != nil {
		t.Errorf("Forward: %v", err)
	}
	_ = c.Close()
	_ = s.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket file after Close: %v, want it removed", err)
	}
}

func TestResolveSocketIgnoresForeignRecord(t *testing.T) {
	t.Parallel()
	root, other := shortDir(t), shortDir(t)
	run := filepath.Join(root, "state", "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	// The tree was copied from another root: its record points there.
	if err := os.WriteFile(filepath.Join(run, "socket-path"), []byte(`{"v":1,"root":"`+other+`","socket":"/tmp/elsewhere.sock"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	want, _ := SocketPath(root)
	if got, err := ResolveSocket(root); err != nil || got != want {
		t.Errorf("ResolveSocket = %s, %v; want %s", got, err, want)
	}
	for _, junk := range []string{"", "{", `{"v":1,"root":"` + root + `","socket":"relative.sock"}`, `{"v":2,"root":"` + root + `","socket":"/tmp/x.sock"}`} {
		if err := os.WriteFile(filepath.Join(run, "socket-path"), []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := ResolveSocket(root); err != nil || got != want {
			t.Errorf("record %q: ResolveSocket = %s, %v; want %s", junk, got, err, want)
		}
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	t.Parallel()
	path := filepath.Join(shortDir(t), "stale.sock")
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	_ = dead.Close() // a crashed server leaves its socket file behind
	l, err := ListenSocket(path)
	if err != nil {
		t.Fatalf("ListenSocket over a stale socket: %v", err)
	}
	defer l.Close()
	checkMode(t, path, fs.ModeSocket|0o600)
}

func TestListenNeverStealsLiveSocket(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{})
	if _, err := ListenSocket(ts.path); !errors.Is(err, ErrServerRunning) {
		t.Fatalf("ListenSocket on a live socket = %v, want ErrServerRunning", err)
	}
	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Ping(testCtx(t)); err != nil {
		t.Errorf("the live server stopped answering: %v", err)
	}
}

func TestListenLeavesOtherFilesAlone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(shortDir(t), "not-a-socket")
	if err := os.WriteFile(path, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ListenSocket(path); !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("ListenSocket over a file = %v, want EADDRINUSE", err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "data" {
		t.Errorf("file after ListenSocket: %q, %v; want it untouched", data, err)
	}
}

func TestListenWithoutLedger(t *testing.T) {
	t.Parallel()
	if _, err := Listen(shortDir(t)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Listen on a root without state/ = %v, want fs.ErrNotExist", err)
	}
}

func TestEnsurePrivateDir(t *testing.T) {
	t.Parallel()
	base := shortDir(t)
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(open, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, reason string
	}{
		{"new", filepath.Join(base, "new"), ""},
		{"too open", open, ""},
		{"symlink", link, "symlink"},
		{"file", file, "not_dir"},
	}
	if os.Getuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct{ name, dir, reason string }{"another user's", theirs, "owner"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ensurePrivateDir(tt.dir)
			var ue *UnsafeDirError
			switch {
			case tt.reason == "" && err != nil:
				t.Fatalf("ensurePrivateDir = %v, want nil", err)
			case tt.reason == "":
				checkMode(t, tt.dir, fs.ModeDir|0o700)
			case !errors.As(err, &ue) || ue.Reason != tt.reason:
				t.Fatalf("ensurePrivateDir = %v, want UnsafeDirError %s", err, tt.reason)
			}
		})
	}
}

func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode(); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}
