package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nats-io/nkeys"
)

// adminKey loads the administrator's nkey from dir, generating it on the
// first start. Only its public key reaches the server: clients prove they
// hold the seed by signing the server's nonce, so the secret never
// crosses the network, even without TLS. A seed file other users can
// read is refused rather than used, as ssh refuses a private key.
func adminKey(dir string) (pub string, err error) {
	path := filepath.Join(dir, CredentialsFile)
	seed, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		seed, err = newSeed(path)
	}
	if err != nil {
		return "", &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return "", &Error{Kind: KindCredentials, Subject: path, Err: fmt.Errorf("mode %#o lets other users read it (want 0600)", perm)}
	}
	kp, err := nkeys.ParseDecoratedNKey(seed)
	if err != nil {
		return "", &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	defer kp.Wipe()
	pub, err = kp.PublicKey()
	if err != nil {
		return "", &Error{Kind: KindCredentials, Subject: path, Err: err}
	}
	return pub, nil
}

// newSeed writes a fresh user seed to path, 0600, created exclusively
// and synced (with its directory) before it is used: a hub that crashed
// right after its first start must not come back with another key.
func newSeed(path string) ([]byte, error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	defer kp.Wipe()
	kseed, err := kp.Seed()
	if err != nil {
		return nil, err
	}
	// Wipe clears the key pair's own copy.
	seed := append([]byte(nil), kseed...)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Left by a start that crashed before the rename: never used.
		os.Remove(tmp)
		f, err = os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	}
	if err != nil {
		return nil, err
	}
	_, err = f.Write(append(seed, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return seed, nil
}
