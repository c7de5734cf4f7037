// Package hub is `daokit hub`: an embedded NATS server with JetStream
// that roots on many hosts share (issue 31). It has one job, to run that
// server safely: a file store that fsyncs every write (nats-server #7564:
// the default syncs every two minutes and loses acknowledged writes on an
// OS crash), authentication on by default with a key generated into the
// data directory, TLS when given a certificate, anonymous access only on
// loopback and only when asked, a health and metrics endpoint, and a
// clean stop. How a root's subjects and streams are named is in
// hub/naming; who writes them is later work (the leader, the agents).
package hub

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Default addresses: both loopback, so that a hub is reachable from other
// hosts only when someone says so (--listen 0.0.0.0:4222, with TLS).
const (
	DefaultListen  = "127.0.0.1:4222"
	DefaultMonitor = "127.0.0.1:8222"
)

// Server-side keepalive: a client that stops answering is dropped after
// about PingInterval × MaxPingsOut (30 s), so its pull requests and
// interest end instead of lingering for nats-server's default 4 minutes.
const (
	pingInterval = 10 * time.Second
	maxPingsOut  = 3
)

// readyWait bounds the wait for the client port once the server has
// started (JetStream's recovery happens before, inside Start).
const readyWait = 10 * time.Second

// Options configure a hub.
type Options struct {
	// Listen is the client address, host:port; port 0 picks a free one.
	Listen string
	// DataDir holds the store, the credentials and the lock.
	DataDir string
	// TLSCert and TLSKey, both or neither, turn on TLS for clients.
	TLSCert, TLSKey string
	// Anonymous lets clients in without credentials; only on a loopback
	// Listen address.
	Anonymous bool
	// Monitor is the address of the health and metrics endpoint
	// (host:port, port 0 picks one); empty: none.
	Monitor string
	// Logger receives the server's log; nil: discarded.
	Logger *slog.Logger
}

// Hub is a running hub.
type Hub struct {
	srv      *server.Server
	log      *serverLog
	lock     *os.File
	tls      bool
	host     string
	credFile string
	dir      string
	admin    string
	reloadMu sync.Mutex      // one reload at a time
	opts     *server.Options // as last applied, for the next reload
	mon      *http.Server
	monLn    net.Listener
	monDone  chan struct{}
}

// Start checks every precondition (addresses, data directory, key,
// certificate), then starts the server and returns once clients can
// connect. Every failure is an *Error.
func Start(o Options) (*Hub, error) {
	host, port, err := splitListen(o.Listen)
	if err != nil {
		return nil, err
	}
	if o.Anonymous && !IsLoopback(host) {
		return nil, &Error{Kind: KindAnonymous, Subject: o.Listen}
	}
	tlsConf, err := loadTLS(o.TLSCert, o.TLSKey, time.Now())
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, &Error{Kind: KindDataDir, Subject: o.DataDir, Err: err}
	}
	lock, err := openDataDir(dir)
	if err != nil {
		return nil, err
	}
	h := &Hub{lock: lock, tls: tlsConf != nil, host: host, credFile: filepath.Join(dir, CredentialsFile)}
	ok := false
	defer func() {
		if !ok {
			h.release()
		}
	}()
	pub, err := adminKey(dir)
	if err != nil {
		return nil, err
	}
	users, err := LoadUsers(dir)
	if err != nil {
		return nil, err
	}
	h.dir, h.admin = dir, pub
	if port != 0 {
		// nats-server reports a port it cannot bind only as a log line;
		// trying it first gives the reason (busy, not ours, privileged).
		if err := probeListen(o.Listen); err != nil {
			return nil, err
		}
	}
	if o.Monitor != "" {
		if h.monLn, err = listen(o.Monitor); err != nil {
			return nil, err
		}
	}

	opts := &server.Options{
		ServerName: "daokit-hub",
		Host:       host,
		Port:       port,
		NoSigs:     true, // the command owns SIGTERM and SIGINT
		JetStream:  true,
		StoreDir:   dir,
		// fsync before every acknowledgement (nats-server #7564).
		SyncAlways:             true,
		DisableJetStreamBanner: true,
		Nkeys:                  nkeyUsers(pub, users),
		PingInterval:           pingInterval,
		MaxPingsOut:            maxPingsOut,
	}
	if port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	if o.Anonymous {
		// A client without credentials acts as the administrator; one
		// with them still proves it.
		opts.NoAuthUser = pub
	}
	if tlsConf != nil {
		opts.TLS, opts.TLSConfig = true, tlsConf
	}
	h.opts = opts.Clone()
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, &Error{Kind: KindStart, Subject: o.Listen, Err: err}
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	h.srv, h.log = srv, &serverLog{log: logger}
	srv.SetLoggerV2(h.log, false, false, false)
	// Start returns once JetStream has recovered its store and the client
	// port is bound, or as soon as either failed (a fatal log line).
	srv.Start()
	if err := h.log.fatalErr(); err != nil {
		return nil, &Error{Kind: KindStart, Subject: o.Listen, Err: err}
	}
	if !srv.ReadyForConnections(readyWait) {
		err := h.log.fatalErr()
		if err == nil {
			err = errors.New("not ready for connections")
		}
		return nil, &Error{Kind: KindStart, Subject: o.Listen, Err: err}
	}
	if h.monLn != nil {
		h.mon = &http.Server{Handler: monitorHandler(srv), ReadHeaderTimeout: 5 * time.Second}
		h.monDone = make(chan struct{})
		go func() {
			defer close(h.monDone)
			_ = h.mon.Serve(h.monLn)
		}()
	}
	ok = true
	return h, nil
}

// ClientURL is where clients connect: nats:// or, with TLS, tls://, on
// the host given and the port the server listens on (the one it picked
// for port 0).
func (h *Hub) ClientURL() string {
	scheme := "nats"
	if h.tls {
		scheme = "tls"
	}
	port := 0
	if addr, ok := h.srv.Addr().(*net.TCPAddr); ok {
		port = addr.Port
	}
	return scheme + "://" + net.JoinHostPort(h.host, strconv.Itoa(port))
}

// MonitorURL is the base URL of the health and metrics endpoint, empty
// without one.
func (h *Hub) MonitorURL() string {
	if h.monLn == nil {
		return ""
	}
	return "http://" + h.monLn.Addr().String()
}

// ReloadUsers reads the registry of issued keys again and applies it to
// the running server (what SIGHUP does): a new key is let in, a key
// whose line was removed is refused from its next connection on, and
// the connections of a removed key are closed by the server. A registry
// that cannot be read changes nothing.
func (h *Hub) ReloadUsers() error {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	users, err := LoadUsers(h.dir)
	if err != nil {
		return err
	}
	opts := h.opts.Clone()
	opts.Nkeys = nkeyUsers(h.admin, users)
	if err := h.srv.ReloadOptions(opts.Clone()); err != nil {
		return &Error{Kind: KindStart, Subject: filepath.Join(h.dir, UsersFile), Err: err}
	}
	h.opts = opts
	return nil
}

// CredentialsFile is the path of the administrator's nkey seed, for
// nats.NkeyOptionFromSeed.
func (h *Hub) CredentialsFile() string { return h.credFile }

// Shutdown stops the endpoint and the server (JetStream flushes and
// closes its store), then frees the data directory. ctx bounds the wait
// for the endpoint's requests in flight.
func (h *Hub) Shutdown(ctx context.Context) error {
	var err error
	if h.mon != nil {
		err = h.mon.Shutdown(ctx)
		<-h.monDone
	}
	h.release()
	return err
}

// release stops whatever Start got running and frees the directory.
func (h *Hub) release() {
	if h.srv != nil {
		h.srv.Shutdown()
		h.srv.WaitForShutdown()
	}
	if h.mon == nil && h.monLn != nil {
		h.monLn.Close()
	}
	if h.lock != nil {
		h.lock.Close()
		h.lock = nil
	}
}

// IsLoopback reports whether host names this machine only.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// splitListen parses host:port; an empty host means every interface.
func splitListen(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, &Error{Kind: KindListen, Subject: addr, Err: err}
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, &Error{Kind: KindListen, Subject: addr, Err: errors.New("port is not a number from 0 to 65535")}
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return host, port, nil
}

// listen listens on addr, naming a busy port as such.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, &Error{Kind: KindPortBusy, Subject: addr, Err: err}
	}
	return nil, &Error{Kind: KindListen, Subject: addr, Err: err}
}

func probeListen(addr string) error {
	ln, err := listen(addr)
	if err != nil {
		return err
	}
	return ln.Close()
}
