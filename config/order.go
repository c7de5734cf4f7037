package config

import (
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// settingOrder maps each setting of a file, spelled as Error.Key spells
// it ("lanes[1].timeout", "workflow.steps[0]"), to its place in the file,
// so that problems found by decoding and by validation can be told in the
// order a person reads the file.
type settingOrder map[string]int

// orderOf numbers the keys of a decoded file in the order they appear.
// Each [[table]] header is a key of its own there, which gives the index
// of the table it opens.
func orderOf(md toml.MetaData) settingOrder {
	order := settingOrder{}
	seen := map[string]int{} // tables of an array so far, by unindexed path
	for i, k := range md.Keys() {
		plain := k.String()
		if md.Type(k...) == "ArrayHash" {
			seen[plain]++
			// A new parent table starts its nested arrays afresh.
			for p := range seen {
				if strings.HasPrefix(p, plain+".") {
					delete(seen, p)
				}
			}
		}
		var b strings.Builder
		for j, part := range k {
			if j > 0 {
				b.WriteByte('.')
			}
			b.WriteString(part)
			if n := seen[strings.Join(k[:j+1], ".")]; n > 0 {
				b.WriteString("[" + strconv.Itoa(n-1) + "]")
			}
		}
		if _, dup := order[b.String()]; !dup {
			order[b.String()] = i
		}
	}
	return order
}

// place returns where key is in the file: its own place, else that of
// the nearest enclosing setting that is there (a required setting that is
// missing sits with its table), else after everything.
func (o settingOrder) place(key string) int {
	for key != "" {
		if i, ok := o[key]; ok {
			return i
		}
		cut := strings.LastIndexAny(key, ".[")
		if cut < 0 {
			break
		}
		key = key[:cut]
	}
	return len(o)
}

// sort orders problems as their settings appear in the file; problems of
// the same setting, and those the file does not locate, keep the order
// they were found in.
func (o settingOrder) sort(list Errors) {
	slices.SortStableFunc(list, func(a, b *Error) int { return o.place(a.Key) - o.place(b.Key) })
}

// withoutEchoes drops the validation problems of a setting whose value
// could not be decoded: it kept its default, so what validation says of it
// would only echo the first problem.
func withoutEchoes(decoded, validated Errors) Errors {
	out := decoded
	for _, v := range validated {
		echo := slices.ContainsFunc(decoded, func(d *Error) bool {
			return d.Code != CodeUnknownKey && (d.Key == v.Key || strings.HasPrefix(v.Key, d.Key+".") || strings.HasPrefix(v.Key, d.Key+"["))
		})
		if !echo {
			out = append(out, v)
		}
	}
	return out
}
