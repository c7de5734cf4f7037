package team

import (
	"maps"
	"path/filepath"
	"slices"
)

// FileName is the name of the workflow file in the outbox root.
const FileName = "workflow.toml"

// MaxCap bounds every cap (the same bound as a lane's concurrency).
const MaxCap = 64

// Backends the [outbox] section may name.
const (
	BackendSQLite = "sqlite"
	// BackendGitHub keeps the outbox in a GitHub repository's issues
	// (Repo), mirrored locally at Path.
	BackendGitHub = "github"
	// BackendGitLab keeps the outbox in a GitLab project's issues
	// (Repo is the project's path), mirrored locally at Path.
	BackendGitLab = "gitlab"
	// BackendNATS is the outbox on a daokit hub (issue 31): url, root
	// and credentials say which hub and which root's outbox stream.
	BackendNATS = "nats"
)

// Workflow is the whole of workflow.toml.
type Workflow struct {
	// Dir is the absolute folder of workflow.toml (the outbox root);
	// relative paths are resolved against it. Not written in the file.
	Dir    string
	Outbox Outbox
	// MemoryDir is the project memory folder, written only by Leads.
	MemoryDir string
	// Roles by name; Names keeps the file's order (sorted).
	Roles map[string]Role
	Names []string
	// Groups by name.
	Groups map[string]Group
	// AllowUnguarded is [guard] allow_unguarded: where the system cannot
	// guard Workers (no user namespaces), run them without the guard
	// instead of refusing to run them. Off unless the person says so.
	AllowUnguarded bool
}

// Outbox is the [outbox] section.
type Outbox struct {
	// Backend is "sqlite", "github", "gitlab" or "nats".
	Backend string
	// Path is the SQLite database, relative to the outbox root; for
	// GitHub the local mirror of the repository (default
	// .daokit/github/<owner>/<name>.db).
	Path string
	// Repo is the GitHub repository, "owner/name", or the GitLab
	// project's path, "group/sub/name".
	Repo string
	// APIURL is the GitHub REST root ("" = the public API; GitHub
	// Enterprise Server: https://HOST/api/v3).
	APIURL string
	// URL is the hub's client address (nats://host:port or tls://…),
	// for the nats backend.
	URL string
	// Root is the root id whose outbox stream the team shares on the hub
	// (hub/naming's rule), for the nats backend.
	Root string
	// Credentials is the hub's nkey seed file (admin.nk of its data
	// directory, copied to the Leads' hosts), relative to the outbox
	// root unless absolute; empty for a hub that lets anonymous
	// loopback clients in.
	Credentials string
}

// Role is one [roles.<name>] section.
type Role struct {
	Name string
	// Repo is role_repo: the folder the role's Workers run in, relative
	// to the outbox root unless absolute. Default: the outbox root.
	Repo string
	// DependsOn names the roles whose open work comes first: an issue of
	// this role waits (state:blocked) for the open issues of those roles
	// filed before it.
	DependsOn []string
	// Worker is the Worker's command line; {issue}, {role} and {repo} are
	// replaced. Empty: the simulated role worker.
	Worker []string
	// Accepts lets the role stamp decision:accepted (architect,
	// integrator, recorder): its Lead writes accepted items to memory.
	Accepts bool
	// Kind is how the Worker's output is read (kind): "command" (plain
	// lines, the default), "claude" or "codex" (their JSON streams: the
	// session and the cost are kept with the attempt's result).
	Kind string
	// Resume is the Worker's command line when it goes on with the
	// session an earlier attempt on the issue reported (an agent CLI's
	// resume): the worker's placeholders and {session}. Empty: every
	// attempt starts afresh.
	Resume []string
	// Loop, when set (workflow = "loop"), is how the role works an
	// issue instead of one Worker: its coder and reviewer lanes until
	// its judge says done, each agent a Worker of the Lead's runtime.
	Loop *Loop
	// Deliver is how the role's accepted work leaves its worktree:
	// DeliverPR pushes the branch and opens a pull request (a
	// merge request on GitLab) once decision:accepted is stamped on the
	// issue; "" leaves the branch where it is.
	Deliver string
}

// DeliverPR is the one value of a role's deliver: accepted work becomes
// a pull request on the outbox's own repository.
const DeliverPR = "pr"

// WorkerKinds are the values a role's kind may take.
func WorkerKinds() []string { return []string{"command", "claude", "codex"} }

// Group is one [groups.<name>] section: a soft cap on the Workers of its
// roles together (one role's Lead never runs more than it either).
type Group struct {
	Name string
	// MaxConcurrent is the soft cap, 1 to MaxCap.
	MaxConcurrent int
	// Roles the cap applies to; default the role named like the group.
	Roles []string
}

// SoftCap returns the smallest cap of the groups role is in, or 0 when no
// group names it.
func (w *Workflow) SoftCap(role string) int {
	best := 0
	for _, n := range slices.Sorted(maps.Keys(w.Groups)) {
		g := w.Groups[n]
		for _, r := range g.Roles {
			if r == role && (best == 0 || g.MaxConcurrent < best) {
				best = g.MaxConcurrent
			}
		}
	}
	return best
}

// Limit is min(soft cap, hard cap): how many Workers role may run at once.
func (w *Workflow) Limit(role string, hard int) int {
	soft := w.SoftCap(role)
	if soft == 0 || hard < soft {
		return hard
	}
	return soft
}

// RepoDir is the role's working folder, absolute.
func (w *Workflow) RepoDir(role string) string {
	return w.abs(w.Roles[role].Repo)
}

// DBPath is the SQLite database (for GitHub, its mirror), absolute.
func (w *Workflow) DBPath() string { return w.abs(w.Outbox.Path) }

// CredentialsPath is the hub's credentials file, absolute ("" when none).
func (w *Workflow) CredentialsPath() string {
	if w.Outbox.Credentials == "" {
		return ""
	}
	return w.abs(w.Outbox.Credentials)
}

// MemoryPath is the memory folder, absolute.
func (w *Workflow) MemoryPath() string { return w.abs(w.MemoryDir) }

func (w *Workflow) abs(p string) string {
	if p == "" {
		return w.Dir
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(w.Dir, p)
}

// SharedGroups are the groups that name role together with other roles:
// each such cap bounds the Workers of all its roles together, so their
// Leads (separate processes) count one another's running issues in the
// outbox before they start one (outbox.Limit).
func (w *Workflow) SharedGroups(role string) []Group {
	var out []Group
	for _, n := range slices.Sorted(maps.Keys(w.Groups)) {
		g := w.Groups[n]
		if len(g.Roles) > 1 && slices.Contains(g.Roles, role) {
			out = append(out, g)
		}
	}
	return out
}
