package roster

// ExitGuardUnavailable: Workers cannot be guarded on this system and
// workflow.toml does not allow them unguarded, so the Lead refuses to
// run them (Detail: why the guard failed).
const ExitGuardUnavailable = "GUARD_UNAVAILABLE"

// GuardUnavailableError is why Workers cannot be guarded here (no user
// namespaces, a /proc that may not be mounted again, a non-Linux
// system). A Lead stops on it rather than run a Worker unguarded, unless
// workflow.toml says [guard] allow_unguarded = true.
type GuardUnavailableError struct{ Err error }

func (e *GuardUnavailableError) Error() string {
	return "Workers cannot be guarded on this system (" + e.Err.Error() +
		"); the Lead refuses to run them unguarded unless workflow.toml says [guard] allow_unguarded = true"
}

func (e *GuardUnavailableError) Unwrap() error { return e.Err }
