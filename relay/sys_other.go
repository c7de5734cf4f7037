//go:build !linux && !darwin

package relay

import (
	"errors"
	"net"
)

// sunPathLen is the smallest sockaddr_un.sun_path among the BSDs.
const sunPathLen = 104

// errNoPeerCred is returned where relay does not know how to ask the kernel
// for peer credentials; the server then refuses every connection rather
// than trust one it cannot check.
var errNoPeerCred = errors.New("relay: peer credentials not supported on this system")

func peerCred(net.Conn) (Peer, error) { return Peer{}, errNoPeerCred }
