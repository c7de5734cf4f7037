package worker

import (
	"slices"
	"testing"
)

func TestSplitter(t *testing.T) {
	type line struct {
		text string
		size int
	}
	tests := []struct {
		name   string
		limit  int
		chunks []string
		want   []line
	}{
		{"whole lines in one chunk", 10, []string{"a\nbb\n"}, []line{{"a", 1}, {"bb", 2}}},
		{"line across chunks", 10, []string{"ab", "cd", "e\nf"}, []line{{"abcde", 5}, {"f", 1}}},
		{"cut and counted", 4, []string{"abcdefgh\nxy\n"}, []line{{"abcd", 8}, {"xy", 2}}},
		{"cut across chunks", 4, []string{"abc", "defg", "h\n"}, []line{{"abcd", 8}}},
		{"empty lines", 4, []string{"\n\n"}, []line{{"", 0}, {"", 0}}},
		{"no final newline", 4, []string{"tail"}, []line{{"tail", 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := splitter{limit: tt.limit}
			var got []line
			emit := func(b []byte, size int) { got = append(got, line{string(b), size}) }
			for _, c := range tt.chunks {
				sp.feed([]byte(c), emit)
			}
			sp.flush(emit)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCutBytes(t *testing.T) {
	b := []byte("a界") // 1 + 3 bytes
	for max, want := range map[int]string{1: "a", 2: "a", 3: "a", 4: "a界", 9: "a界"} {
		if got := string(trimPartialRune(cutBytes(b, max))); got != want {
			t.Errorf("cut at %d: got %q, want %q", max, got, want)
		}
	}
}
