//go:build linux

package relay

import (
	"net"

	"golang.org/x/sys/unix"
)

// sunPathLen is the size of sockaddr_un.sun_path, terminating NUL included.
const sunPathLen = 108

// peerCred asks the kernel who is at the other end of c. The answer is the
// peer's credentials at connect time, which a peer cannot forge.
func peerCred(c net.Conn) (Peer, error) {
	return withSocketFD(c, func(fd int) (Peer, error) {
		cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			return Peer{}, err
		}
		return Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}, nil
	})
}
