//go:build !unix

package hooks

import "os/exec"

// ownProcessGroup leaves cmd as it is: without process groups, the
// context's end kills the command itself (exec's default).
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup has nothing to kill without process groups.
func killProcessGroup(*exec.Cmd) {}
