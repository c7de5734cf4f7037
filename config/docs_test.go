package config

import (
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
		if len(c.Lanes) != 4 || len(c.Workflow.Steps) != 3 || len(c.Hooks) != 1 {
			t.Errorf("%s: got %d lanes, %d steps, %d hooks; want the whole example (4, 3, 1)", name, len(c.Lanes), len(c.Workflow.Steps), len(c.Hooks))
		}
		configs = append(configs, c)
	}
	if !reflect.DeepEqual(configs[0], configs[1]) {
		t.Errorf("the English and Chinese examples differ:\n%+v\n%+v", configs[0], configs[1])
	}
}
