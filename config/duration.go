package config

import (
	"fmt"
	"strings"
	"time"
)

// Duration is a time.Duration written in TOML as a string with a unit:
// "500ms", "45s", "2m", "1h30m". "0" is zero. A bare TOML number is
// rejected rather than guessed (seconds? nanoseconds?).
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d the way it would be written in daokit.toml.
func (d Duration) String() string { return formatDuration(time.Duration(d)) }

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler. An invalid value is a
// *DurationError.
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := ParseDuration(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// DurationError reports text that is not a duration.
type DurationError struct {
	Value string
}

// Error implements error.
func (e *DurationError) Error() string {
	return fmt.Sprintf("invalid duration %q (write a number with a unit: 500ms, 45s, 2m, 1h)", e.Value)
}

// ParseDuration parses a daokit.toml duration. Negative durations parse;
// Validate decides where they are allowed.
func ParseDuration(s string) (Duration, error) {
	t := strings.TrimSpace(s)
	v, err := time.ParseDuration(t)
	if err != nil {
		return 0, &DurationError{Value: s}
	}
	return Duration(v), nil
}

// formatDuration prints whole units without the zero tails that
// time.Duration.String adds ("2m" rather than "2m0s").
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	s := d.String()
	for _, tail := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(s, tail) {
			s = s[:len(s)-len(tail)+1]
		}
	}
	return s
}
