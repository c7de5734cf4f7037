//go:build unix

package outbox

import (
	"golang.org/x/sys/unix"
)

// pokeFolder writes a byte to dir/role/poke, the waiting Lead's watch
// sees it. No link is followed on the way: where the database sits in
// the project folder, a Worker may write beside it, and a link planted
// there must not make a writer truncate a file elsewhere.
func pokeFolder(dir, role string) {
	d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(d)
	r, err := unix.Openat(d, role, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(r)
	f, err := unix.Openat(r, "poke", unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return
	}
	unix.Write(f, []byte{1})
	unix.Close(f)
}
