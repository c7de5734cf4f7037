package hub_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// startHub starts a hub on a free loopback port in dir; the cleanup stops it.
func startHub(t *testing.T, o hub.Options) *hub.Hub {
	t.Helper()
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	h, err := hub.Start(o)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	return h
}

// connect connects to h with its generated key (or without one, when
// seed is empty), failing fast: these tests want the first answer.
func connect(url, seed string, extra ...nats.Option) (*nats.Conn, error) {
	opts := append([]nats.Option{nats.NoReconnect(), nats.Timeout(5 * time.Second)}, extra...)
	if seed != "" {
		o, err := nats.NkeyOptionFromSeed(seed)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	return nats.Connect(url, opts...)
}

// ledgerStream creates root's ledger stream as the leader will: file
// storage, its one subject.
func ledgerStream(t *testing.T, js jetstream.JetStream, r naming.Root) jetstream.Stream {
	t.Helper()
	s, err := js.CreateOrUpdateStream(context.Background(), jetstream.StreamConfig{
		Name: r.LedgerStream(), Subjects: []string{r.LedgerSubject()}, Storage: jetstream.FileStorage,
	})
	if err != nil {
		t.Fatalf("create stream: %v", err)
	}
	return s
}

func TestHubKeepsWhatItAcknowledgedAndKnowsOnlyItsKeyHolders(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, hub.Options{DataDir: dir, Monitor: "127.0.0.1:0"})
	if !h.SyncAlways() {
		t.Error("JetStream does not fsync every write (sync_interval: always)")
	}
	info, err := os.Stat(h.CredentialsFile())
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("credentials mode %#o, want 0600", perm)
	}

	if nc, err := connect(h.ClientURL(), ""); err == nil {
		nc.Close()
		t.Fatal("a client without credentials was let in")
	} else if !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("client without credentials: %v, want an authorization violation", err)
	}
	// A key the hub did not generate is refused as well.
	if nc, err := connect(h.ClientURL(), foreignKey(t)); err == nil {
		nc.Close()
		t.Fatal("a client with a foreign key was let in")
	} else if !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("client with a foreign key: %v, want an authorization violation", err)
	}

	nc, err := connect(h.ClientURL(), h.CredentialsFile())
	if err != nil {
		t.Fatalf("client with the generated key: %v", err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	r, _ := naming.ForRoot("alpha")
	ledgerStream(t, js, r)
	ctx := context.Background()
	for _, body := range []string{"e1", "e2", "e3"} {
		if _, err := js.Publish(ctx, r.LedgerSubject(), []byte(body)); err != nil {
			t.Fatalf("publish %s: %v", body, err)
		}
	}
	for seq, want := range map[uint64]string{1: "e1", 2: "e2", 3: "e3"} {
		s, _ := js.Stream(ctx, r.LedgerStream())
		m, err := s.GetMsg(ctx, seq)
		if err != nil || string(m.Data) != want {
			t.Errorf("message %d: %q, %v; want %q", seq, m.Data, err, want)
		}
	}

	health := get(t, h.MonitorURL()+"/healthz")
	if health.code != http.StatusOK || !strings.Contains(health.body, `"ok"`) {
		t.Errorf("healthz: %d %s", health.code, health.body)
	}
	metrics := get(t, h.MonitorURL()+"/metrics")
	for _, want := range []string{"daokit_hub_up 1", "daokit_hub_jetstream_messages 3", "daokit_hub_jetstream_streams 1", "daokit_hub_connections 1"} {
		if !strings.Contains(metrics.body, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, metrics.body)
		}
	}
}

// A clean restart on the same directory keeps the key (clients' copies
// stay valid) and the streams.
func TestHubRestartKeepsKeyAndStreams(t *testing.T) {
	dir := t.TempDir()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := os.ReadFile(h.CredentialsFile())
	nc, err := connect(h.ClientURL(), h.CredentialsFile())
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	r, _ := naming.ForRoot("beta")
	ledgerStream(t, js, r)
	if _, err := js.Publish(context.Background(), r.LedgerSubject(), []byte("kept")); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	h = startHub(t, hub.Options{DataDir: dir})
	again, _ := os.ReadFile(h.CredentialsFile())
	if string(again) != string(seed) {
		t.Error("the restarted hub generated a new key: every client's copy is now useless")
	}
	nc, err = connect(h.ClientURL(), h.CredentialsFile())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ = jetstream.New(nc)
	s, err := js.Stream(context.Background(), r.LedgerStream())
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetMsg(context.Background(), 1)
	if err != nil || string(m.Data) != "kept" {
		t.Errorf("after restart: %v, %v", m, err)
	}
}

func TestHubRefusesWhatItCannotServeSafely(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	expiredCert, expiredKey := writeCert(t, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	_, otherKey := writeCert(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	goodCert, _ := writeCert(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	loose := t.TempDir()
	seed, _ := os.ReadFile(foreignKey(t))
	if err := os.WriteFile(filepath.Join(loose, hub.CredentialsFile), seed, 0o644); err != nil {
		t.Fatal(err)
	}

	// A store JetStream cannot open: nats-server says so only in its log.
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, hub.StoreSubdir), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name string
		o    hub.Options
		want hub.Kind
	}{
		{"store that is a file", hub.Options{DataDir: broken}, hub.KindStart},
		{"busy client port", hub.Options{Listen: busy.Addr().String()}, hub.KindPortBusy},
		{"busy monitor port", hub.Options{Monitor: busy.Addr().String()}, hub.KindPortBusy},
		{"address of no interface here", hub.Options{Listen: "192.0.2.1:4222"}, hub.KindListen},
		{"no port", hub.Options{Listen: "127.0.0.1"}, hub.KindListen},
		{"data dir under a file", hub.Options{DataDir: filepath.Join(file, "hub")}, hub.KindDataDir},
		{"garbage certificate", hub.Options{TLSCert: garbage, TLSKey: garbage}, hub.KindTLS},
		{"expired certificate", hub.Options{TLSCert: expiredCert, TLSKey: expiredKey}, hub.KindTLS},
		{"key of another certificate", hub.Options{TLSCert: goodCert, TLSKey: otherKey}, hub.KindTLS},
		{"certificate without key", hub.Options{TLSCert: goodCert}, hub.KindTLS},
		{"anonymous beyond loopback", hub.Options{Listen: "0.0.0.0:0", Anonymous: true}, hub.KindAnonymous},
		{"credentials others can read", hub.Options{DataDir: loose}, hub.KindCredentials},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.o.Listen == "" {
				c.o.Listen = "127.0.0.1:0"
			}
			if c.o.DataDir == "" {
				c.o.DataDir = t.TempDir()
			}
			h, err := hub.Start(c.o)
			if err == nil {
				_ = h.Shutdown(context.Background())
				t.Fatal("started")
			}
			var he *hub.Error
			if !errors.As(err, &he) || he.Kind != c.want {
				t.Fatalf("%v, want kind %s", err, c.want)
			}
		})
	}
}

// A directory the hub's user may not write is refused before anything
// listens (root writes anywhere, so this runs only as another user).
func TestHubRefusesADataDirItCannotWrite(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write a 0500 directory")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	for _, d := range []string{dir, filepath.Join(dir, "hub")} {
		_, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: d})
		var he *hub.Error
		if !errors.As(err, &he) || he.Kind != hub.KindDataDir {
			t.Errorf("data dir %s: %v, want %s", d, err, hub.KindDataDir)
		}
	}
}

// Two hubs on one store would corrupt it: the second is refused, and
// the directory is free again once the first stops.
func TestHubHoldsItsDataDir(t *testing.T) {
	dir := t.TempDir()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: dir})
	var he *hub.Error
	if !errors.As(err, &he) || he.Kind != hub.KindDataDirInUse {
		t.Fatalf("second hub on the same dir: %v, want %s", err, hub.KindDataDirInUse)
	}
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	startHub(t, hub.Options{DataDir: dir})
}

func TestHubServesTLS(t *testing.T) {
	cert, key := writeCert(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	h := startHub(t, hub.Options{DataDir: t.TempDir(), TLSCert: cert, TLSKey: key})
	if !strings.HasPrefix(h.ClientURL(), "tls://") {
		t.Errorf("client URL %s, want tls://", h.ClientURL())
	}
	pool := x509.NewCertPool()
	pemBytes, _ := os.ReadFile(cert)
	pool.AppendCertsFromPEM(pemBytes)
	nc, err := connect(h.ClientURL(), h.CredentialsFile(), nats.Secure(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	if err != nil {
		t.Fatalf("TLS client with the key: %v", err)
	}
	nc.Close()
	// A client that does not trust the certificate gets no further.
	if nc, err := connect(h.ClientURL(), h.CredentialsFile()); err == nil {
		nc.Close()
		t.Error("a client that does not trust the hub's certificate connected")
	}
}

func TestHubAnonymousOnLoopbackWhenAsked(t *testing.T) {
	h := startHub(t, hub.Options{DataDir: t.TempDir(), Anonymous: true})
	nc, err := connect(h.ClientURL(), "")
	if err != nil {
		t.Fatalf("anonymous client on a hub that allows it: %v", err)
	}
	nc.Close()
	nc, err = connect(h.ClientURL(), h.CredentialsFile())
	if err != nil {
		t.Fatalf("client with the key on an anonymous hub: %v", err)
	}
	nc.Close()
}

// foreignKey writes a valid user nkey seed the hub never saw and
// returns its path.
func foreignKey(t *testing.T) string {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	path := filepath.Join(t.TempDir(), "foreign.nk")
	if err := os.WriteFile(path, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

type answer struct {
	code int
	body string
}

func get(t *testing.T, url string) answer {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(b)}
}

// writeCert writes a self-signed certificate for 127.0.0.1 valid from
// notBefore to notAfter, and its key; it returns their paths.
func writeCert(t *testing.T, notBefore, notAfter time.Time) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "daokit hub test"},
		NotBefore: notBefore, NotAfter: notAfter, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
