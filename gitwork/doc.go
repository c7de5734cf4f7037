// Package gitwork gives each step of a run its own git worktree, reads what
// the step changed, merges an accepted change into its base branch and
// removes finished worktrees without ever losing work.
//
// The engine is the git command itself (every user has it, and its
// behaviour on odd repositories is the one people expect); this package
// only runs it with a fixed locale and no prompts, and parses its
// machine-readable output (--porcelain, --numstat, unified diffs).
//
// Safety rules, which every caller inherits:
//   - a merge never forces: a conflict is reported and nothing is changed;
//   - a worktree that is dirty, or whose branch is neither merged nor
//     pushed, is kept unless the caller forces, and even a forced removal
//     keeps the branch (the commits stay reachable).
package gitwork
