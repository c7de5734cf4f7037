// Package fakemodel is a scripted model endpoint on 127.0.0.1 that the
// real Claude Code and Codex CLIs talk to as if it were the provider, so
// that tests run them offline and decide every answer.
//
// It speaks the Anthropic Messages API (POST /v1/messages, streaming or
// not, POST /v1/messages/count_tokens) and the OpenAI Responses API
// (POST /v1/responses, streaming). A test scripts each conversation with
// a Rule matched on its user text, usually a marker in the instruction:
//
//	model := fakemodel.Start(t,
//		fakemodel.Rule{Match: "MARK-coder", Turns: []fakemodel.Turn{
//			fakemodel.Call("Writing it.", fakemodel.Write(file, "hello\n")),
//			fakemodel.Say("Done: wrote hello."),
//		}},
//		fakemodel.Rule{Match: "MARK-review", Turns: []fakemodel.Turn{
//			fakemodel.Call("", fakemodel.Exec("cat hello.txt")),
//			fakemodel.Say("VERDICT: APPROVE"),
//		}},
//	)
//	// Claude: ANTHROPIC_BASE_URL=model.URL; Codex: base_url = model.URL+"/v1"
//
// The turn that answers a request is the number of model answers already
// in its history, so no state is kept per conversation: a CLI that
// resumes a session sends its earlier conversation and gets the next
// turn (Claude's synthetic "No response requested." is not an answer).
// Turn.Error answers with the provider's own HTTP error (401, 429 with
// retry-after, 500, 529), every time or the first Times times;
// Turn.StreamError fails a stream that began; Turn.Hold keeps one
// request unanswered until Release, to stop an agent mid-step. Cwd in a
// tool argument becomes the working folder the CLI told the model, so a
// script can name absolute paths in a worktree it cannot know. Codex
// tools: Exec (exec_command), UpdatePatch and ApplyPatch (an apply_patch
// heredoc through exec_command), Patch and PatchLine (its freeform
// apply_patch tool, offered for models it knows, e.g. gpt-5.5).
//
// Claude Code's side requests (title and topic checks with a small model,
// quota checks) carry no tools; they get a short harmless text and never
// consume a turn. Every request is recorded (Requests, Scripted) so that a
// test can assert on what a CLI really sent.
package fakemodel
