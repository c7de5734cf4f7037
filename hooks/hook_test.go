package hooks

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestParsePoint(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Point{
		"pre-dispatch": PreDispatch, "POST_ACCEPT": PostAccept, " pre_compact ": PreCompact, "Session-Start": SessionStart,
	} {
		if got, err := ParsePoint(in); err != nil || got != want {
			t.Errorf("ParsePoint(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	_, err := ParsePoint("post-compact")
	var upe *UnknownPointError
	if !errors.As(err, &upe) || upe.Value != "post-compact" {
		t.Fatalf("got %v, want an *UnknownPointError", err)
	}
	if got, want := err.Error(), `unknown hook point "post-compact"; expected one of: pre-dispatch, post-accept, pre-compact, session-start`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Point(0).String(); got != "Point(0)" {
		t.Errorf("zero point prints %q", got)
	}
}

// TestSpecFromTOML decodes the daokit.toml shape documented on
// Spec.
func TestSpecFromTOML(t *testing.T) {
	t.Parallel()
	var cfg struct {
		Hooks []Spec `toml:"hooks"`
	}
	_, err := toml.Decode(`
[[hooks]]
point = "PRE_COMPACT"
name = "redact"
command = ["jq", "."]
timeout = "5s"
env = ["LEVEL=2"]
idempotent = true

[[hooks]]
point = "session-start"
name = "hello"
command = ["sh", "-c", "cat"]
`, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []Spec{
		{Point: PreCompact, Name: "redact", Command: []string{"jq", "."}, Timeout: 5 * time.Second, Env: []string{"LEVEL=2"}, Idempotent: true},
		{Point: SessionStart, Name: "hello", Command: []string{"sh", "-c", "cat"}},
	}
	if len(cfg.Hooks) != len(want) {
		t.Fatalf("got %d hooks", len(cfg.Hooks))
	}
	for i := range want {
		got := cfg.Hooks[i]
		if got.Point != want[i].Point || got.Name != want[i].Name || !slices.Equal(got.Command, want[i].Command) ||
			got.Timeout != want[i].Timeout || !slices.Equal(got.Env, want[i].Env) || got.Idempotent != want[i].Idempotent {
			t.Errorf("hook %d: got %+v, want %+v", i, got, want[i])
		}
		if err := got.Validate(); err != nil {
			t.Errorf("hook %d: %v", i, err)
		}
	}
	if _, err := toml.Decode("[[hooks]]\npoint = \"post-compact\"\n", &cfg); err == nil {
		t.Error("an unknown point decoded")
	}
}

func TestSpecValidate(t *testing.T) {
	t.Parallel()
	good := Spec{Point: PreCompact, Name: "x", Command: []string{"cat"}}
	for name, mutate := range map[string]func(*Spec){
		"no point":         func(s *Spec) { s.Point = 0 },
		"no name":          func(s *Spec) { s.Name = " " },
		"no command":       func(s *Spec) { s.Command = nil },
		"blank program":    func(s *Spec) { s.Command = []string{""} },
		"negative timeout": func(s *Spec) { s.Timeout = -time.Second },
		"negative output":  func(s *Spec) { s.MaxOutput = -1 },
		"bad env":          func(s *Spec) { s.Env = []string{"NOEQUALS"} },
	} {
		spec := good
		mutate(&spec)
		if err := spec.Validate(); err == nil {
			t.Errorf("%s: Validate() = nil", name)
		}
		if err := (&Set{}).Add(spec); err == nil {
			t.Errorf("%s: Set.Add accepted it", name)
		}
	}
}

func TestSetNamesAreUniquePerPoint(t *testing.T) {
	t.Parallel()
	s := &Set{}
	spec := Spec{Point: PreDispatch, Name: "x", Command: []string{"cat"}}
	if err := s.Add(spec); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(spec); !errors.Is(err, ErrDuplicateHook) {
		t.Errorf("second %q at pre-dispatch: got %v", spec.Name, err)
	}
	spec.Point = PostAccept
	if err := s.Add(spec); err != nil {
		t.Errorf("same name at another point: %v", err)
	}
	if got := len(s.At(PreDispatch)); got != 1 {
		t.Errorf("At(pre-dispatch) has %d commands", got)
	}
}

func TestStatusNames(t *testing.T) {
	t.Parallel()
	for s, want := range map[Status]string{StatusOK: "ok", StatusSkipped: "skipped", StatusFailed: "failed", StatusTimeout: "timeout"} {
		if got := s.String(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	data, err := json.Marshal(Result{Name: "x", Point: PreCompact, Status: StatusTimeout, Code: CodeTimeout})
	if want := `{"name":"x","point":"pre-compact","status":"timeout","duration_ns":0,"code":"HOOK_TIMEOUT"}`; err != nil || string(data) != want {
		t.Errorf("got %s, %v; want %s", data, err, want)
	}
}
