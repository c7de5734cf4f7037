package termsafe

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "plain text", "plain text"},
		{"tabs and lines pass", "a\tb\nc\n", "a\tb\nc\n"},
		{"CJK passes", "修复登录页面 租约…", "修复登录页面 租约…"},
		{"emoji ZWJ passes", "👩\u200d💻 👍🏽", "👩\u200d💻 👍🏽"},
		{"cursor up, erase line", "+evil\x1b[1A\x1b[2K", `+evil\x1b[1A\x1b[2K`},
		{"OSC 52 with BEL", "\x1b]52;c;aGk=\a", `\x1b]52;c;aGk=\x07`},
		{"OSC 2 title with ST", "\x1b]2;owned\x1b\\", `\x1b]2;owned\x1b\`},
		{"lone ESC", "a\x1b", `a\x1b`},
		{"carriage return", "benign\rmalicious", `benign\x0dmalicious`},
		{"backspace", "rm -rf /\b\b\b\b\b\b\b\bls", `rm -rf /\x08\x08\x08\x08\x08\x08\x08\x08ls`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"C1 CSI in UTF-8", "\u009b1A", `\u009b1A`},
		{"raw 8-bit CSI", "\x9b1A", `\x9b1A`},
		{"invalid UTF-8", "\xff\xfe", `\xff\xfe`},
		{"replacement character passes", "\ufffd", "\ufffd"},
		{"bidi override", "if x \u202e} {\u202c", `if x \u202e} {\u202c`},
		{"bidi isolates", "\u2066a\u2069", `\u2066a\u2069`},
		{"zero width space and BOM", "a\u200bb\ufeff", `a\u200bb\ufeff`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"tag characters", "a\U000e0041", `a\U000e0041`},
		{"literal backslash passes", `\x1b`, `\x1b`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("%s: Escape(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if Clean(tt.in) != (tt.in == tt.want) {
			t.Errorf("%s: Clean(%q) = %v", tt.name, tt.in, Clean(tt.in))
		}
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\tb\nc\r":          "a b c ",
		"\x1b[2J\x1b[Hclear": `\x1b[2J\x1b[Hclear`,
		"中文…":                "中文…",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVisitMarksTheEscapes(t *testing.T) {
	t.Parallel()
	var got []string
	Visit("a\x1b[1A修\u202e\tb\xff", true, func(part string, escaped bool) {
		if escaped {
			part = "<" + part + ">"
		}
		got = append(got, part)
	})
	if s := strings.Join(got, "|"); s != `a|<\x1b>|[1A修|<\u202e>| |b|<\xff>` {
		t.Errorf("Visit: %s", s)
	}
}

// A character split across writes comes out whole, and a sequence cut
// by the end of the output is escaped by Flush.
func TestWriterSplitsAnywhere(t *testing.T) {
	t.Parallel()
	in := "租约 \x1b[1A\u202e ok 👍🏽\xff\n"
	want := Escape(in)
	for cut := 0; cut <= len(in); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for _, part := range []string{in[:cut], in[cut:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("Write(%q) = %d, %v", part, n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("cut at %d: %q, want %q", cut, out.String(), want)
		}
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	_, _ = w.Write([]byte("a\xe7\xa7"))
	if out.String() != "a" {
		t.Errorf("before Flush: %q, want the unfinished character held back", out.String())
	}
	_ = w.Flush()
	if out.String() != `a\xe7\xa7` {
		t.Errorf("after Flush: %q", out.String())
	}
}

// checkSafe fails when out holds anything a terminal would act on.
func checkSafe(t *testing.T, in, out string, line bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Escape(%q) = %q is not UTF-8", in, out)
	}
	for _, r := range out {
		switch {
		case (r == '\t' || r == '\n') && !line:
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			t.Fatalf("control %U survived: Escape(%q) = %q", r, in, out)
		case needsRuneEscape(r):
			t.Fatalf("invisible %U survived: Escape(%q) = %q", r, in, out)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"abc", "租约", "\x1b[1A\x1b[2K", "\x1b]52;c;aGk=\a", "\x9b", "\u009b", "\xff\xfe", "a\u0301", "👍🏽", "\u202e", "\t\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		esc, line := Escape(s), Line(s)
		checkSafe(t, s, esc, false)
		checkSafe(t, s, line, true)
		if Escape(esc) != esc || Line(line) != line {
			t.Fatalf("not idempotent on %q", s)
		}
		if !Clean(esc) {
			t.Fatalf("Clean(Escape(%q)) is false", s)
		}
		// Text with nothing to escape passes byte for byte.
		if Clean(s) && esc != s {
			t.Fatalf("clean %q changed to %q", s, esc)
		}
		// Printable text survives in order: removing the escapes' own
		// backslash forms never loses a printable rune of the input.
		for _, r := range s {
			if r >= 0x20 && r != 0x7f && r != utf8.RuneError && !needsRuneEscape(r) && !strings.ContainsRune(esc, r) {
				t.Fatalf("printable %q lost: Escape(%q) = %q", r, s, esc)
			}
		}
		for _, line := range []bool{false, true} {
			var joined strings.Builder
			Visit(s, line, func(part string, escaped bool) {
				if escaped && (!strings.HasPrefix(part, `\`) || len(part) < 4) {
					t.Fatalf("escaped part %q of %q", part, s)
				}
				joined.WriteString(part)
			})
			if want := escape(s, line); joined.String() != want {
				t.Fatalf("Visit(%q, %v) joins to %q, want %q", s, line, joined.String(), want)
			}
		}
		var out bytes.Buffer
		w := NewWriter(&out)
		half := len(s) / 2
		_, _ = w.Write([]byte(s[:half]))
		_, _ = w.Write([]byte(s[half:]))
		_ = w.Flush()
		if out.String() != esc {
			t.Fatalf("Writer(%q) = %q, Escape = %q", s, out.String(), esc)
		}
	})
}

// The window cleans every cell it draws: Chinese text with nothing to
// escape must stay cheap.
func BenchmarkLineCJK(b *testing.B) {
	s := strings.Repeat("修复登录页面在移动端的布局错位 and add a test ", 4)
	for b.Loop() {
		Line(s)
	}
}
