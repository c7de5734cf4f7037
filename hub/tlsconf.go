package hub

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"
)

// loadTLS loads the hub's certificate and key and checks, before any
// client finds out, that they match and that the certificate is valid
// now.
func loadTLS(certFile, keyFile string, now time.Time) (*tls.Config, error) {
	switch {
	case certFile == "" && keyFile == "":
		return nil, nil
	case certFile == "":
		return nil, &Error{Kind: KindTLS, Subject: keyFile, Err: errors.New("a key without a certificate (--tls-cert)")}
	case keyFile == "":
		return nil, &Error{Kind: KindTLS, Subject: certFile, Err: errors.New("a certificate without its key (--tls-key)")}
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, &Error{Kind: KindTLS, Subject: certFile, Err: err}
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, &Error{Kind: KindTLS, Subject: certFile, Err: err}
	}
	if now.After(leaf.NotAfter) || now.Before(leaf.NotBefore) {
		return nil, &Error{Kind: KindTLS, Subject: certFile,
			Err: fmt.Errorf("valid from %s to %s, not now", leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))}
	}
	pair.Leaf = leaf
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}
