package relay

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds arbitrary lines through everything the server and the
// client do with a line before a handler sees it. None may panic, and a
// line either decodes or gets one of the protocol's error codes.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"v":1,"id":"a","type":"instruction","action":"forward","body":{"text":"x"}}`,
		`{"v":1,"id":"a","type":"control","action":"forward","body":{"kind":"cancel","task_id":"T"}}`,
		`{"v":1,"type":"notice","body":{"kind":"worker_output","output":{"line":"x"}}}`,
		`{"v":2,"id":{"x":1}}`, `{"v":1,"id":"a","type":"ping","action":" execute "}`, `[]`, `nul`, "\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		env, _, perr := decodeEnvelope(line)
		if perr != nil {
			if perr.Code != CodeMalformed && perr.Code != CodeBadVersion {
				t.Fatalf("decode error code %q", perr.Code)
			}
			return
		}
		_ = checkRequest(env)
		var in Instruction
		var c Control
		var n Notice
		var st Status
		var e Error
		for _, v := range []any{&in, &c, &n, &st, &e} {
			_ = env.DecodeBody(v)
		}
		_, _ = n.queueKey()
		_ = n.check()
		if bytes.HasPrefix(line, outputPrefix) {
			_, _ = inbound{raw: line}.notice()
		}
		if n.Kind == NoticeWorkerOutput && n.Output != nil {
			if out, err := noticeLine(n, 512); err == nil && len(out)-1 > 512 {
				t.Fatalf("noticeLine gave %d bytes over a 512 cap", len(out)-1)
			}
		}
	})
}

// FuzzLineReader checks the cap holds for any stream and any split.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\r\n\nccc"), 2)
	f.Add(bytes.Repeat([]byte("x"), 600), 256)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		lr := newLineReader(bytes.NewReader(data), max)
		for {
			line, err := lr.next()
			if err != nil {
				return
			}
			if len(line) > max {
				t.Fatalf("line of %d bytes passed a cap of %d", len(line), max)
			}
		}
	})
}
