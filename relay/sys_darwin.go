//go:build darwin

package relay

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sunPathLen is the size of sockaddr_un.sun_path, terminating NUL included.
const sunPathLen = 104

// peerCred asks the kernel who is at the other end of c (LOCAL_PEERCRED and
// LOCAL_PEERPID, the macOS counterparts of SO_PEERCRED).
func peerCred(c net.Conn) (Peer, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Peer{}, fmt.Errorf("relay: peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	var p Peer
	var credErr error
	err = raw.Control(func(fd uintptr) {
		var x *unix.Xucred
		x, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if credErr != nil {
			return
		}
		p.UID = x.Uid
		if x.Ngroups > 0 {
			p.GID = x.Groups[0]
		}
		pid, perr := unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
		if perr == nil {
			p.PID = int32(pid)
		}
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	return p, nil
}
