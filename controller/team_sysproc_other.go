//go:build !linux

package controller

import "syscall"

// leadSysProcAttr gives a Lead a process group of its own.
func leadSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
