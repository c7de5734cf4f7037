package hub

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
	"golang.org/x/sys/unix"
)

// The registry of per-root keys in the data directory: one JSON object
// a line, so that revoking a key is deleting its line (then SIGHUP or a
// restart). Only public keys are kept there; each seed goes to the one
// who asked for it.
const (
	UsersFile = "users.jsonl"
	usersLock = "users.lock"
)

// User is one issued key: who may connect, and for what.
type User struct {
	// PublicKey is the nkey's public half ("U…").
	PublicKey string `json:"public_key"`
	// Root is the root id the key is scoped to.
	Root string `json:"root"`
	// Role is what the key may do on that root.
	Role Role `json:"role"`
}

// Issue makes a key for role on root: it writes the seed to out (0600,
// never over an existing file: a seed in use must not be lost) and
// records the public key in dir's registry, where a hub loads it at its
// next start or SIGHUP. It works while a hub runs on dir.
func Issue(dir string, root naming.Root, role Role, out string) (User, error) {
	if _, err := ParseRole(string(role)); err != nil {
		return User{}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return User{}, &Error{Kind: KindDataDir, Subject: dir, Err: err}
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return User{}, err
	}
	defer kp.Wipe()
	seed, err := kp.Seed()
	if err != nil {
		return User{}, err
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return User{}, err
	}
	u := User{PublicKey: pub, Root: root.ID(), Role: role}
	if err := writeNew(out, append(append([]byte(nil), seed...), '\n')); err != nil {
		return User{}, &Error{Kind: KindCredentials, Subject: out, Err: err}
	}
	if err := appendUser(dir, u); err != nil {
		os.Remove(out) // a key no hub knows is of no use
		return User{}, err
	}
	return u, nil
}

// writeNew creates path exclusively, 0600, and syncs it.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// appendUser adds u to the registry under its lock (two issuers at once
// must not lose one another's line), synced before it returns.
func appendUser(dir string, u User) error {
	path := filepath.Join(dir, UsersFile)
	lock, err := os.OpenFile(filepath.Join(dir, usersLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	line, err := json.Marshal(u)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	return nil
}

// LoadUsers reads dir's registry; a missing one holds nobody. A line
// that is not a valid key for a valid root and role is refused with its
// number, rather than skipped: a hub must not start with less (or more)
// than its operator wrote.
func LoadUsers(dir string) ([]User, error) {
	path := filepath.Join(dir, UsersFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	var users []User
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var u User
		err := json.Unmarshal(line, &u)
		if err == nil && !nkeys.IsValidPublicUserKey(u.PublicKey) {
			err = fmt.Errorf("%q is not a user's public nkey", u.PublicKey)
		}
		if err == nil {
			err = naming.ValidRootID(u.Root)
		}
		if err == nil {
			_, err = ParseRole(string(u.Role))
		}
		if err != nil {
			return nil, &Error{Kind: KindCredentials, Subject: fmt.Sprintf("%s:%d", path, n), Err: err}
		}
		users = append(users, u)
	}
	return users, sc.Err()
}

// nkeyUsers are the server's users: the administrator, unrestricted,
// then every issued key with its root's permissions.
func nkeyUsers(admin string, users []User) []*server.NkeyUser {
	out := []*server.NkeyUser{{Nkey: admin}}
	for _, u := range users {
		r, _ := naming.ForRoot(u.Root) // checked by LoadUsers
		out = append(out, &server.NkeyUser{Nkey: u.PublicKey, Permissions: Permissions(r, u.Role)})
	}
	return out
}
