package config

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"testing"
)

var tomlBlock = regexp.MustCompile("(?s)```toml\n(.*?)```")

// TestDocsExampleIsValid parses the full example of both language
// versions of docs/config: it must load without problems, and both must
// say the same thing.
func TestDocsExampleIsValid(t *testing.T) {
	var configs []Config
	for _, name := range []string{"../docs/config.en.md", "../docs/config.zh-CN.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m := tomlBlock.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s: no ```toml example", name)
		}
		c, err := Parse(m[1], name, "/ledger")
		if err != nil {
			t.Fatalf("%s: example does not load:\n%v", name, err)
		}
		if len(c.Lanes) != 4 || len(c.Workflow.Steps) != 3 || len(c.Hooks) != 1 || len(c.Workflow.Callbacks) != 2 {
			t.Errorf("%s: got %d lanes, %d steps, %d hooks, %d callbacks; want the whole example (4, 3, 1, 2)", name,
				len(c.Lanes), len(c.Workflow.Steps), len(c.Hooks), len(c.Workflow.Callbacks))
		}
		configs = append(configs, c)
	}
	if !reflect.DeepEqual(configs[0], configs[1]) {
		t.Errorf("the English and Chinese examples differ:\n%+v\n%+v", configs[0], configs[1])
	}
}

// TestAgentTeamGuideExamplesLoad parses every daokit.toml example of the
// agent team guide in both languages (a block that starts with the
// comment "# ~/.codex/config.toml" is Codex's configuration): each must
// load, and the loop example must be a loop judged by the tests.
func TestAgentTeamGuideExamplesLoad(t *testing.T) {
	for _, name := range []string{"../docs/workflows/agent-team.en.md", "../docs/workflows/agent-team.zh-CN.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var blocks [][][]byte
		for _, b := range tomlBlock.FindAllSubmatch(data, -1) {
			// Codex's own configuration, not a daokit.toml.
			if !bytes.HasPrefix(b[1], []byte("# ~/.codex/config.toml\n")) {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) != 2 {
			t.Fatalf("%s: %d toml examples, want 2", name, len(blocks))
		}
		loop, err := Parse(blocks[0][1], name, "/ledger")
		if err != nil {
			t.Fatalf("%s: the loop example does not load:\n%v", name, err)
		}
		if w := loop.Workflow; w.Flow() != FlowLoop || w.Judge != JudgeCommand || len(w.JudgeCommand) == 0 {
			t.Errorf("%s: loop example is %+v", name, w)
		}
		if _, err := Parse(blocks[1][1], name, "/ledger"); err != nil {
			t.Errorf("%s: the summary example does not load:\n%v", name, err)
		}
	}
}
