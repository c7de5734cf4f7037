package component

import "strconv"

// Bytes renders a size for people in env's language: "512 B",
// "130.0 KB", "1.0 MB" (units of 1024).
func Bytes(env *Env, n int) string {
	switch {
	case n < 1<<10:
		return env.T("keys.size.b", "N", strconv.Itoa(n))
	case n < 1<<20:
		return env.T("keys.size.kb", "N", tenths(n, 1<<10))
	}
	return env.T("keys.size.mb", "N", tenths(n, 1<<20))
}

// tenths renders n/unit with one decimal, rounded.
func tenths(n, unit int) string {
	t := (n*10 + unit/2) / unit
	return strconv.Itoa(t/10) + "." + strconv.Itoa(t%10)
}
