package hub

import "fmt"

// Kind says which of the hub's preconditions failed, so that the command
// can word each in the reader's language and say what to do about it.
type Kind string

// The ways Start can fail. Each names one thing a person can fix.
const (
	// KindPortBusy: another process listens on the address.
	KindPortBusy Kind = "port_busy"
	// KindListen: the address cannot be listened on for another reason
	// (not an address of this host, a privileged port, a bad form).
	KindListen Kind = "listen"
	// KindDataDir: the data directory cannot be created or written.
	KindDataDir Kind = "data_dir"
	// KindDataDirInUse: another hub holds the data directory.
	KindDataDirInUse Kind = "data_dir_in_use"
	// KindCredentials: the generated credentials cannot be written, read,
	// or are readable by other users.
	KindCredentials Kind = "credentials"
	// KindTLS: the certificate or key cannot be loaded, do not match, or
	// the certificate has expired.
	KindTLS Kind = "tls"
	// KindAnonymous: anonymous access was asked for on an address that
	// is not loopback.
	KindAnonymous Kind = "anonymous"
	// KindStart: the embedded server did not come up (its own reason in
	// Err).
	KindStart Kind = "start"
)

// Error is a failure of Start: what failed (Kind), on which address,
// path or file (Subject), and the system's reason (Err, may be nil).
type Error struct {
	Kind    Kind
	Subject string
	Err     error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("hub: %s: %s", e.Kind, e.Subject)
	}
	return fmt.Sprintf("hub: %s: %s: %v", e.Kind, e.Subject, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
