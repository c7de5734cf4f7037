package text

import (
	"strings"
	"testing"
)

func TestFitMeasuresCells(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 5, "abc  "},
		{"租约", 5, "租约 "},
		{"租约状态", 5, "租约…"},
		{"租约状态", 4, "租… "},
		{"abcdef", 3, "ab…"},
		{"\x1b[31mred\x1b[0m", 5, "\x1b[31mred\x1b[0m  "},
		{"x", 0, ""},
	}
	for _, tt := range tests {
		if got := Fit(tt.in, tt.w, "…"); got != tt.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
		if got := Width(Fit(tt.in, tt.w, "…")); got != tt.w && tt.w > 0 {
			t.Errorf("Fit(%q, %d) is %d cells wide", tt.in, tt.w, got)
		}
	}
	// A wide character never straddles the edge.
	if got := Width(Fit("a租约", 2, "")); got != 2 {
		t.Errorf("Fit cut inside a wide character: width %d", got)
	}
	if got := Truncate("abc", 1, "…"); got != "…" && Width(got) > 1 {
		t.Errorf("Truncate with a tail wider than the room: %q", got)
	}
}

func TestBlockIsExact(t *testing.T) {
	t.Parallel()
	b := Block([]string{"一二三四五六", "x"}, 7, 3, "…")
	lines := strings.Split(b, "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if Width(l) != 7 {
			t.Errorf("line %q is %d wide", l, Width(l))
		}
	}
}

func TestWrapCJK(t *testing.T) {
	t.Parallel()
	for _, l := range Wrap("修复登录页面在移动端的布局错位 and add a test", 10) {
		if Width(l) > 10 {
			t.Errorf("wrapped line %q is %d wide", l, Width(l))
		}
	}
}

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		wide bool
		want string
	}{
		{"plain", false, "plain"},
		{"a\tb\nc\r", false, "a b c "},
		{"\x1b[2J\x1b[Hclear", false, `\x1b[2J\x1b[Hclear`},
		{"bell\a\x00", false, `bell\x07\x00`},
		{"\u202eevil\u200b", false, `\u202eevil\u200b`},
		{"\xff\x9b", true, `\xff\x9b`},
		{"中文…", false, "中文…"},
		{"中文…·─", true, "中文...*-"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in, tt.wide); got != tt.want {
			t.Errorf("Sanitize(%q, %v) = %q, want %q", tt.in, tt.wide, got, tt.want)
		}
	}
}

func FuzzSanitizeFit(f *testing.F) {
	for _, s := range []string{"abc", "租约", "\x1b[31m", "\xff\xfe", "a\u0301", "👍🏽"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = w%300 + 1
		if w < 1 {
			w = -w + 1
		}
		out := Fit(Sanitize(s, false), w, "…")
		if got := Width(out); got != w {
			t.Fatalf("Fit(Sanitize(%q), %d) is %d wide", s, w, got)
		}
		if strings.ContainsAny(out, "\n\r\x1b") {
			t.Fatalf("control characters survived: %q", out)
		}
	})
}
