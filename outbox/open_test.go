package outbox

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A lost or damaged database is refused by every open, read-only or not,
// and left as it was: the issue's "emptied to 0 bytes and silently
// recreated empty, 3 issues gone".
func TestOpenRefusesMissingEmptyAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", "file:"+foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes(x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cases := []struct {
		name, path string
		setup      func(string)
		want       error
		code       string
	}{
		{"missing", filepath.Join(dir, "none.db"), nil, ErrMissing, "OUTBOX_MISSING"},
		{"emptied", filepath.Join(dir, "empty.db"), func(p string) { os.WriteFile(p, nil, 0o644) }, ErrEmpty, "OUTBOX_EMPTY"},
		{"garbage", filepath.Join(dir, "garbage.db"), func(p string) { os.WriteFile(p, []byte("not a database at all"), 0o644) }, ErrCorrupt, "OUTBOX_CORRUPT"},
		{"a folder", filepath.Join(dir, "folder.db"), func(p string) { os.Mkdir(p, 0o755) }, ErrCorrupt, "OUTBOX_CORRUPT"},
		{"another program's database", foreign, nil, ErrCorrupt, "OUTBOX_CORRUPT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				c.setup(c.path)
			}
			before, _ := os.ReadFile(c.path)
			for _, o := range []Options{{}, {ReadOnly: true}} {
				s, err := OpenSQLite(c.path, o)
				if err == nil {
					s.Close()
					t.Fatalf("opened (%+v)", o)
				}
				var oe *OpenError
				if !errors.Is(err, c.want) || !errors.As(err, &oe) || oe.Code() != c.code || !strings.Contains(err.Error(), c.path) {
					t.Fatalf("%+v: %v", o, err)
				}
			}
			if err := Check(c.path); !errors.Is(err, c.want) {
				t.Fatalf("check: %v", err)
			}
			after, _ := os.ReadFile(c.path)
			if string(before) != string(after) {
				t.Fatal("the refused file was changed")
			}
			if _, err := os.Stat(c.path); c.want == ErrMissing && err == nil {
				t.Fatal("a missing database was created")
			}
			// Init refuses it too, unless told to replace it.
			if c.want != ErrMissing {
				if _, err := Init(c.path, false); !errors.Is(err, c.want) {
					t.Fatalf("init: %v", err)
				}
			}
		})
	}
	// The foreign database did not get the outbox's tables.
	db, _ = sql.Open("sqlite", "file:"+foreign)
	defer db.Close()
	var n int
	db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'issues'`).Scan(&n)
	if n != 0 {
		t.Fatal("open wrote the outbox schema into another database")
	}
}

// Init creates a database once, keeps an existing one with its issues,
// and replaces a refused one only when asked, keeping the old bytes.
func TestInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "outbox.db")
	res, err := Init(path, false)
	if err != nil || !res.Created {
		t.Fatalf("%+v %v", res, err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("the new database's main file is empty: %v", err)
	}
	if err := Check(path); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSQLite(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, s, Change{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "keep me"}}})
	s.Close()
	if res, err := Init(path, true); err != nil || res.Created || res.MovedAside != "" {
		t.Fatalf("second init: %+v %v", res, err)
	}
	s, err = OpenSQLite(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if is, err := s.Issue(context.Background(), 1); err != nil || is.Title != "keep me" {
		t.Fatalf("%+v %v", is, err)
	}
	s.Close()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-wal")
	res, err = Init(path, true)
	if err != nil || !res.Created || !strings.HasPrefix(res.MovedAside, path+".broken-") {
		t.Fatalf("replace: %+v %v", res, err)
	}
	if st, err := os.Stat(res.MovedAside); err != nil || st.Size() != 0 {
		t.Fatalf("the emptied file was not kept aside: %v", err)
	}
	s, err = OpenSQLite(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if h, err := s.Head(context.Background()); err != nil || h != 0 {
		t.Fatalf("head %d %v", h, err)
	}
}
