package i18n

import (
	"fmt"
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// The supported languages, as the tags people pass to --lang.
const (
	English = "en"
	Chinese = "zh-CN"
)

// Supported lists the language tags daokit speaks, default first.
func Supported() []string { return []string{English, Chinese} }

// matcher picks among the supported tags; its first tag is the fallback.
// It is built on first use: most starts never need it (no locale set,
// or --lang given exactly), and building it allocates.
var matcher = sync.OnceValue(func() language.Matcher {
	return language.NewMatcher([]language.Tag{language.English, language.MustParse("zh-Hans")})
})

// UnknownLanguageError reports a language setting daokit cannot honour.
type UnknownLanguageError struct {
	Source string // "--lang" or the environment variable that carried it
	Value  string
}

func (e *UnknownLanguageError) Error() string {
	return fmt.Sprintf("%s: unsupported language %q (supported: %s)",
		e.Source, e.Value, strings.Join(Supported(), ", "))
}

// Resolve picks the language from, in order: the --lang flag value, the
// DAOKIT_LANG variable, then the first set of LC_ALL, LC_MESSAGES and LANG.
// getenv is usually os.Getenv; tests pass a map lookup.
//
// An explicit choice (flag or DAOKIT_LANG) that matches no supported
// language is an error. A POSIX locale that matches none (fr_FR.UTF-8, or a
// Traditional-Chinese locale such as zh_TW, which matches Simplified
// Chinese only at low confidence) falls back to English: reading a locale
// must never stop the program, and Simplified text is not what a
// Traditional-Chinese reader asked for.
func Resolve(flagValue string, getenv func(string) string) (string, error) {
	if v := strings.TrimSpace(flagValue); v != "" {
		return matchExplicit("--lang", v)
	}
	if v := strings.TrimSpace(getenv("DAOKIT_LANG")); v != "" {
		return matchExplicit("DAOKIT_LANG", v)
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			lang, ok := matchLocale(v)
			if !ok {
				return English, nil
			}
			return lang, nil
		}
	}
	return English, nil
}

func matchExplicit(source, value string) (string, error) {
	lang, ok := matchLocale(value)
	if !ok {
		return "", &UnknownLanguageError{Source: source, Value: value}
	}
	return lang, nil
}

// matchLocale maps a tag or a POSIX locale value (zh_CN.UTF-8, C, en_US@euro)
// to a supported language. It reports false when no confident match exists.
func matchLocale(value string) (string, bool) {
	v := value
	if i := strings.IndexAny(v, ".@"); i >= 0 {
		v = v[:i]
	}
	v = strings.ReplaceAll(v, "_", "-")
	switch strings.ToUpper(v) {
	case "", "C", "POSIX", "EN", "EN-US", "EN-GB":
		return English, true
	case "ZH-CN", "ZH-HANS", "ZH-HANS-CN":
		return Chinese, true
	}
	tag, err := language.Parse(v)
	if err != nil {
		return "", false
	}
	_, index, confidence := matcher().Match(tag)
	if confidence < language.High {
		return "", false
	}
	return Supported()[index], true
}
