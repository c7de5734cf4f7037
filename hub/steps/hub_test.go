package steps

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
)

// testHub starts an embedded hub for the root "t" and returns a dial of
// it: each call a connection of its own, closed at the test's end. The
// hub stops at the test's end too.
func testHub(t *testing.T) (dial func() *Conn, root naming.Root) {
	t.Helper()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: filepath.Join(t.TempDir(), "hub")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	root, _ = naming.ForRoot("t")
	o := DialOptions{URL: h.ClientURL(), Creds: h.CredentialsFile(), Name: "test"}
	return func() *Conn {
		t.Helper()
		c, err := DialWait(context.Background(), o, root, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}, root
}
