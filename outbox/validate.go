package outbox

// Validate refuses a Change no backend may apply (ErrInvalid): the same
// rules for every backend, so that a change valid on SQLite is valid on
// the hub and on GitHub.
func Validate(c Change) error { return validateChange(c) }
