//go:build linux || darwin

package relay

import (
	"fmt"
	"net"
	"syscall"
)

// withSocketFD runs read on the file descriptor of c, which must be a
// socket, for the getsockopt calls that identify the peer.
func withSocketFD(c net.Conn, read func(fd int) (Peer, error)) (Peer, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Peer{}, fmt.Errorf("relay: peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	var p Peer
	var readErr error
	err = raw.Control(func(fd uintptr) { p, readErr = read(int(fd)) })
	if err == nil {
		err = readErr
	}
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	return p, nil
}
