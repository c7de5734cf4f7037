package worker

import (
	"slices"
	"strings"
)

// buildEnv returns base with extra applied (a later entry for a key wins)
// and a UTF-8 character type: a worker without one turns every Chinese
// character into "?" or "_" (tmux and many CLIs do).
func buildEnv(base, extra []string) []string {
	env := make([]string, 0, len(base)+len(extra)+1)
	index := map[string]int{}
	for _, kv := range slices.Concat(base, extra) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := index[k]; ok {
			env[i] = kv
			continue
		}
		index[k] = len(env)
		env = append(env, kv)
	}
	return ensureUTF8(env, index)
}

// ensureUTF8 fixes the variable that decides LC_CTYPE (LC_ALL, else
// LC_CTYPE, else LANG) when it does not name a UTF-8 locale, keeping its
// language: zh_CN.GB18030 becomes zh_CN.UTF-8, C becomes C.UTF-8.
func ensureUTF8(env []string, index map[string]int) []string {
	get := func(k string) string {
		if i, ok := index[k]; ok {
			_, v, _ := strings.Cut(env[i], "=")
			return v
		}
		return ""
	}
	decider, value := "LC_CTYPE", ""
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := get(k); v != "" {
			decider, value = k, v
			break
		}
	}
	if isUTF8Locale(value) {
		return env
	}
	if decider == "LANG" {
		// Leave LANG (messages, collation) alone; override just the
		// character type.
		decider = "LC_CTYPE"
	}
	kv := decider + "=" + utf8Variant(value)
	if i, ok := index[decider]; ok {
		env[i] = kv
		return env
	}
	return append(env, kv)
}

func isUTF8Locale(v string) bool {
	l := strings.ToLower(v)
	return strings.Contains(l, "utf-8") || strings.Contains(l, "utf8")
}

// utf8Variant keeps a locale's language and territory and swaps its
// encoding for UTF-8.
func utf8Variant(v string) string {
	lang := v
	if i := strings.IndexAny(lang, ".@"); i >= 0 {
		lang = lang[:i]
	}
	if lang == "" || lang == "POSIX" {
		lang = "C"
	}
	return lang + ".UTF-8"
}
