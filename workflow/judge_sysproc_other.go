//go:build !linux

package workflow

import "syscall"

// judgeSysProcAttr puts the judge command in a process group of its own.
func judgeSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
