package team

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

type rawFile struct {
	Outbox struct {
		Backend     string `toml:"backend"`
		Path        string `toml:"path"`
		Repo        string `toml:"repo"`
		APIURL      string `toml:"api_url"`
		URL         string `toml:"url"`
		Root        string `toml:"root"`
		Credentials string `toml:"credentials"`
	} `toml:"outbox"`
	Memory struct {
		Dir string `toml:"dir"`
	} `toml:"memory"`
	Guard struct {
		AllowUnguarded bool `toml:"allow_unguarded"`
	} `toml:"guard"`
	Roles  map[string]rawRole  `toml:"roles"`
	Groups map[string]rawGroup `toml:"groups"`
}

type rawRole struct {
	RoleRepo  string   `toml:"role_repo"`
	DependsOn []string `toml:"depends_on"`
	Worker    []string `toml:"worker"`
	Accepts   bool     `toml:"accepts"`
	Kind      string   `toml:"kind"`
	Resume    []string `toml:"resume"`
	Deliver   string   `toml:"deliver"`
	rawLoop
}

type rawGroup struct {
	MaxConcurrent *int64   `toml:"max_concurrent"`
	Roles         []string `toml:"roles"`
}

// Defaults of workflow.toml.
const (
	DefaultDBPath    = ".daokit/outbox.db"
	DefaultMemoryDir = "memory"
)

// namePattern is compiled on first use: its {1,64} compiles to 64 states,
// which every daokit command would otherwise pay for at start.
// repoPattern is "owner/name" as GitHub spells them.
var repoPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,39}/[A-Za-z0-9._-]{1,100}$`)

// projectPattern is a GitLab project path, "group/sub/name" (outbox
// checks the lengths).
var projectPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)+$`)

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`) })

// Load reads <dir>/workflow.toml.
func Load(dir string) (*Workflow, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(abs, FileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Errors{{Code: CodeMissing, File: path, Detail: path}}
	}
	if err != nil {
		return nil, Errors{{Code: CodeRead, File: path, Detail: err.Error()}}
	}
	return Parse(data, path, abs)
}

// Exists reports whether dir has a workflow.toml.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, FileName))
	return err == nil
}

// Parse reads the contents of a workflow.toml; file names it in errors and
// dir is the absolute outbox root.
func Parse(data []byte, file, dir string) (*Workflow, error) {
	var raw rawFile
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, Errors{{Code: CodeSyntax, File: file, Detail: err.Error()}}
	}
	var es Errors
	add := func(e *Error) { e.File = file; es = append(es, e) }
	for _, k := range md.Undecoded() {
		add(&Error{Code: CodeUnknownKey, Key: k.String()})
	}
	w := &Workflow{Dir: dir, Outbox: Outbox{Backend: raw.Outbox.Backend, Path: raw.Outbox.Path, Repo: raw.Outbox.Repo, APIURL: raw.Outbox.APIURL,
		URL: raw.Outbox.URL, Root: raw.Outbox.Root, Credentials: raw.Outbox.Credentials},
		MemoryDir: raw.Memory.Dir, Roles: map[string]Role{}, Groups: map[string]Group{}, AllowUnguarded: raw.Guard.AllowUnguarded}
	if w.Outbox.Backend == "" {
		w.Outbox.Backend = BackendSQLite
	}
	switch w.Outbox.Backend {
	case BackendSQLite:
		onlyGitHub(w.Outbox, add)
		onlyNATS(w.Outbox, add)
	case BackendGitHub, BackendGitLab:
		if !w.Outbox.validRepo() {
			add(&Error{Code: CodeRepo, Key: "outbox.repo", Value: strconv.Quote(w.Outbox.Repo), Want: w.Outbox.Backend})
		}
		if u, err := url.Parse(w.Outbox.APIURL); w.Outbox.APIURL != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "") {
			add(&Error{Code: CodeAPIURL, Key: "outbox.api_url", Value: strconv.Quote(w.Outbox.APIURL)})
		}
		onlyNATS(w.Outbox, add)
	case BackendNATS:
		checkHub(w.Outbox, add)
		onlyGitHub(w.Outbox, add)
	default:
		add(&Error{Code: CodeBackend, Key: "outbox.backend", Value: strconv.Quote(w.Outbox.Backend), Want: BackendSQLite + ", " + BackendGitHub + ", " + BackendGitLab + ", " + BackendNATS})
	}
	if w.Outbox.Path == "" {
		w.Outbox.Path = DefaultDBPath
		if (w.Outbox.Backend == BackendGitHub || w.Outbox.Backend == BackendGitLab) && w.Outbox.validRepo() {
			w.Outbox.Path = filepath.Join(".daokit", w.Outbox.Backend, filepath.FromSlash(w.Outbox.Repo)+".db")
		}
	}
	if w.MemoryDir == "" {
		w.MemoryDir = DefaultMemoryDir
	}
	if len(raw.Roles) == 0 {
		add(&Error{Code: CodeNoRoles, Key: "roles"})
	}
	for name, r := range raw.Roles {
		if !validName(name) {
			add(&Error{Code: CodeName, Key: "roles", Value: strconv.Quote(name)})
			continue
		}
		if r.Kind != "" && !slices.Contains(WorkerKinds(), r.Kind) {
			add(&Error{Code: CodeKind, Key: "roles." + name + ".kind", Value: strconv.Quote(r.Kind), Want: strings.Join(WorkerKinds(), ", ")})
		}
		if r.Deliver != "" && (r.Deliver != DeliverPR || w.Outbox.Backend != BackendGitHub && w.Outbox.Backend != BackendGitLab) {
			add(&Error{Code: CodeDeliver, Key: "roles." + name + ".deliver", Value: strconv.Quote(r.Deliver), Want: w.Outbox.Backend})
		}
		w.Roles[name] = Role{Name: name, Repo: r.RoleRepo, DependsOn: r.DependsOn, Worker: r.Worker, Accepts: r.Accepts, Kind: r.Kind, Resume: r.Resume,
			Deliver: r.Deliver, Loop: parseLoop(name, r.rawLoop, add)}
		w.Names = append(w.Names, name)
	}
	sort.Strings(w.Names)
	known := strings.Join(w.Names, ", ")
	unknownRefs := false
	for _, name := range w.Names {
		for i, d := range w.Roles[name].DependsOn {
			if _, ok := w.Roles[d]; !ok {
				unknownRefs = true
				add(&Error{Code: CodeUnknownRole, Key: fmt.Sprintf("roles.%s.depends_on[%d]", name, i), Value: strconv.Quote(d), Want: known})
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(raw.Groups)) {
		g := raw.Groups[name]
		key := "groups." + name
		if !validName(name) {
			add(&Error{Code: CodeName, Key: "groups", Value: strconv.Quote(name)})
			continue
		}
		roles := g.Roles
		if len(roles) == 0 {
			roles = []string{name}
			if _, ok := w.Roles[name]; !ok {
				add(&Error{Code: CodeUnknownRole, Key: key, Value: strconv.Quote(name), Want: known})
			}
		} else {
			for i, r := range roles {
				if _, ok := w.Roles[r]; !ok {
					add(&Error{Code: CodeUnknownRole, Key: fmt.Sprintf("%s.roles[%d]", key, i), Value: strconv.Quote(r), Want: known})
				}
			}
		}
		n := int64(0)
		value := "-"
		if g.MaxConcurrent != nil {
			n = *g.MaxConcurrent
			value = strconv.FormatInt(n, 10)
		}
		if n < 1 || n > MaxCap {
			add(&Error{Code: CodeCap, Key: key + ".max_concurrent", Value: value, Want: fmt.Sprintf("1–%d", MaxCap)})
		}
		w.Groups[name] = Group{Name: name, MaxConcurrent: int(n), Roles: roles}
	}
	if !unknownRefs {
		if loop := findCycle(w); loop != nil {
			add(&Error{Code: CodeCycle, Key: "roles." + loop[0] + ".depends_on", Value: strings.Join(loop, " → ")})
		}
	}
	if len(es) > 0 {
		return nil, es
	}
	return w, nil
}

func validName(s string) bool { return namePattern().MatchString(s) && s != "." && s != ".." }

// findCycle returns the first depends_on loop, as role names from a role
// back to itself, or nil. Roles are visited in name order, so the message
// is the same on every run.
func findCycle(w *Workflow) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(r string) []string {
		state[r] = onPath
		path = append(path, r)
		for _, d := range w.Roles[r].DependsOn {
			switch state[d] {
			case onPath:
				for i, p := range path {
					if p == d {
						return append(append([]string(nil), path[i:]...), d)
					}
				}
			case unseen:
				if loop := visit(d); loop != nil {
					return loop
				}
			}
		}
		path = path[:len(path)-1]
		state[r] = done
		return nil
	}
	for _, r := range w.Names {
		if state[r] == unseen {
			if loop := visit(r); loop != nil {
				return loop
			}
		}
	}
	return nil
}

// CheckHardCaps reports the roles daokit.toml's team.role_max_concurrent
// names that workflow.toml does not have (file is daokit.toml's path).
func (w *Workflow) CheckHardCaps(caps map[string]int, file string) error {
	var es Errors
	for _, r := range slices.Sorted(maps.Keys(caps)) {
		if _, ok := w.Roles[r]; !ok {
			es = append(es, &Error{Code: CodeUnknownRole, File: file, Key: "team.role_max_concurrent." + r,
				Value: strconv.Quote(r), Want: strings.Join(w.Names, ", ")})
		}
	}
	if len(es) > 0 {
		return es
	}
	return nil
}

// validRepo: Repo is what the backend names a repository by.
func (o Outbox) validRepo() bool {
	if o.Backend == BackendGitLab {
		return projectPattern.MatchString(o.Repo) && !strings.Contains(o.Repo, "..")
	}
	return repoPattern.MatchString(o.Repo)
}

// onlyGitHub refuses repo and api_url on a backend other than github
// and gitlab.
func onlyGitHub(o Outbox, add func(*Error)) {
	if o.Repo != "" || o.APIURL != "" {
		add(&Error{Code: CodeRepo, Key: "outbox.repo", Value: strconv.Quote(o.Repo), Want: BackendGitHub})
	}
}

// onlyNATS refuses the hub's keys on a backend other than nats.
func onlyNATS(o Outbox, add func(*Error)) {
	for _, k := range [][2]string{{"url", o.URL}, {"root", o.Root}, {"credentials", o.Credentials}} {
		if k[1] != "" {
			add(&Error{Code: CodeHub, Key: "outbox." + k[0], Value: strconv.Quote(k[1]), Want: BackendNATS})
		}
	}
}
