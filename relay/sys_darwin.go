//go:build darwin

package relay

import (
	"net"

	"golang.org/x/sys/unix"
)

// sunPathLen is the size of sockaddr_un.sun_path, terminating NUL included.
const sunPathLen = 104

// peerCred asks the kernel who is at the other end of c (LOCAL_PEERCRED and
// LOCAL_PEERPID, the macOS counterparts of SO_PEERCRED).
func peerCred(c net.Conn) (Peer, error) {
	return withSocketFD(c, func(fd int) (Peer, error) {
		x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err != nil {
			return Peer{}, err
		}
		p := Peer{UID: x.Uid}
		if x.Ngroups > 0 {
			p.GID = x.Groups[0]
		}
		if pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil {
			p.PID = int32(pid)
		}
		return p, nil
	})
}
