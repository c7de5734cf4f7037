# Writes rules.json: the fake model's script for capture.sh.
import json, sys
P = sys.argv[1]  # the project folder the agents work in
def say(t, **u): return {"text": t, "usage": u or {"input": 1200, "output": 15, "cache_read": 4000}}
def call(t, tools, **u): return {"text": t, "tools": tools, "usage": u or {"input": 1146, "output": 57, "cache_read": 4000, "cache_creation": 200}}
def write(path, c): return {"name": "Write", "input": {"file_path": path, "content": c}}
def edit(path, o, n): return {"name": "Edit", "input": {"file_path": path, "old_string": o, "new_string": n}}
def bash(c): return {"name": "Bash", "input": {"command": c, "description": "run it"}}
def ex(c): return {"name": "exec_command", "input": {"cmd": c}}
def patch(path, o, n): return ex("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s\n*** End Patch\nEOF\n" % (path, o, n))
H = P + "/hello.txt"
rules = [
 {"name": "edit", "match": "CASE-edit", "turns": [call("I will write the file.", [write(H, "hello from claude\n")]), say("Done: hello.txt now says hello.")]},
 {"name": "denied", "match": "CASE-denied", "turns": [call("Editing and checking.", [edit(H, "line one", "line edited"), bash("echo hi > out.txt && go build ./...")]), say("Done: edited hello.txt and built.")]},
 {"name": "401", "match": "CASE-401", "turns": [{"error": {"status": 401}}]},
 {"name": "429", "match": "CASE-429", "turns": [{"error": {"status": 429, "retry_after": 1, "times": 1}, "text": "Recovered after the rate limit."}]},
 {"name": "529", "match": "CASE-529", "turns": [{"error": {"status": 529}}]},
 {"name": "stream-529", "match": "CASE-stream-529", "turns": [{"stream_error": {"status": 529}}]},
 {"name": "cx-stream-500", "match": "CASE-cx-stream-500", "turns": [{"stream_error": {"status": 500}}]},
 {"name": "500", "match": "CASE-500", "turns": [{"error": {"status": 500}}]},
 {"name": "maxturns", "match": "CASE-maxturns", "turns": [call("Step one.", [bash("echo step1")]), call("Step two.", [bash("echo step2")]), say("All steps done.")]},
 {"name": "testfail", "match": "CASE-testfail", "turns": [call("Running the tests.", [bash("go test -count=1 ./...")]), say("Ran the tests.")]},
 {"name": "testpass", "match": "CASE-testpass", "turns": [call("Running the tests.", [bash("go test -count=1 -run TestAdd ./...")]), say("Ran the tests.")]},
 {"name": "resume", "match": "CASE-resume", "turns": [call("Writing.", [write(H, "first\n")]), say("First part done."),
     call("Editing.", [edit(H, "first", "second")], input=1500, output=30, cache_read=5000, cache_creation=100), say("Second part done.", input=1600, output=10, cache_read=5100)]},
 {"name": "outside", "match": "CASE-outside", "turns": [call("Writing outside.", [write("/tmp/cap/outside-claude.txt", "x\n"), edit(P + "/../proj-sibling.txt", "a", "b")]), say("Done.")]},
 {"name": "dash", "match": "CASE-dash", "turns": [say("The instruction arrived.")]},
 {"name": "root", "match": "CASE-root", "turns": [call("Writing.", [write(H, "root wrote this\n"), bash("id -u")]), say("Done.")]},
 {"name": "cx-edit", "match": "CASE-cx-edit", "turns": [call("Patching.", [patch("hello.txt", "line one", "hello from codex")], input=900, output=40, cache_read=300), say("Done: hello.txt says hello.", input=1000, output=10)]},
 {"name": "cx-denied", "match": "CASE-cx-denied", "turns": [call("Patching.", [patch("hello.txt", "line one", "hello from codex")]), call("Writing with the shell.", [ex("echo hi > out.txt")]), say("Done: edited hello.txt.")]},
 {"name": "cx-401", "match": "CASE-cx-401", "turns": [{"error": {"status": 401}}]},
 {"name": "cx-429", "match": "CASE-cx-429", "turns": [{"error": {"status": 429, "retry_after": 1}}]},
 {"name": "cx-500", "match": "CASE-cx-500", "turns": [{"error": {"status": 500}}]},
 {"name": "cx-testfail", "match": "CASE-cx-testfail", "turns": [call("Running the tests.", [ex("go test -count=1 ./...")]), say("Ran the tests.")]},
 {"name": "cx-testpass", "match": "CASE-cx-testpass", "turns": [call("Running the tests.", [ex("go test -count=1 -run TestAdd ./...")]), say("Ran the tests.")]},
 {"name": "cx-resume", "match": "CASE-cx-resume", "turns": [call("Patching.", [patch("hello.txt", "line one", "first")], input=900, output=40, cache_read=300), say("First part done.", input=1000, output=10),
     call("Patching again.", [patch("hello.txt", "first", "second")], input=1500, output=30, cache_read=600), say("Second part done.", input=1600, output=10)]},
 {"name": "cx-outside", "match": "CASE-cx-outside", "turns": [call("Writing outside.", [ex("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: /usr/local/daokit-capture-outside.txt\n+x\n*** End Patch\nEOF\n")]), call("With the shell.", [ex("echo x > /usr/local/daokit-capture-outside2.txt")]), say("Done.")]},
 {"name": "cx-freeform", "match": "CASE-cx-freeform", "turns": [call("Patching.", [{"name": "apply_patch", "freeform": "*** Begin Patch\n*** Update File: hello.txt\n@@\n-line one\n+hello from codex\n*** End Patch\n"}], input=900, output=40, cache_read=300), say("Done.", input=1000, output=10)]},
 {"name": "cx-dash", "match": "CASE-cx-dash", "turns": [say("The instruction arrived.")]},
]
json.dump(rules, open(sys.argv[2], "w"), indent=1)
