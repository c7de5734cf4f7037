//go:build linux

package relay

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sunPathLen is the size of sockaddr_un.sun_path, terminating NUL included.
const sunPathLen = 108

// peerCred asks the kernel who is at the other end of c. The answer is the
// peer's credentials at connect time, which a peer cannot forge.
func peerCred(c net.Conn) (Peer, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Peer{}, fmt.Errorf("relay: peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	err = raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	return Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}, nil
}
