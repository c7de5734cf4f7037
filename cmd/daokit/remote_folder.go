package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/ledger"
)

// remoteFolder keeps a mirror of the root the flags name in this host's
// cache (hub/mirror) and returns its folder once it holds every event the
// hub held when asked, so that status, replay and the window read a
// remote root as they read a local one. stop ends the mirror. A folder
// that another mirror keeps current (`daokit mirror` into the same cache)
// is used as it is.
func (a *app) remoteFolder(o remoteFlags, command string) (dir string, stop func(), err error) {
	names, err := a.remoteRoot(o)
	if err != nil {
		return "", nil, err
	}
	conn, err := a.dialHub(o, command)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(a.ctx, hubconn.DefaultTimeout)
	defer cancel()
	s, err := mirror.LedgerStream(ctx, conn.JS, names)
	var last uint64
	if err == nil {
		last, err = mirror.LastSequence(ctx, s)
	}
	conn.Close()
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return "", nil, failf("E_HUB_NO_LEADER", a.t("remote.cli.error.no_leader", "Root", o.rootID, "URL", o.hub))
	}
	if err != nil {
		return "", nil, failf("E_HUB_UNREACHABLE", a.t("remote.cli.error.dial", "URL", o.hub, "Err", err.Error()))
	}
	dir, err = a.mirrorCache(o)
	if err != nil {
		return "", nil, failf("E_MIRROR_FAILED", err.Error())
	}
	mctx, stopMirror := context.WithCancel(a.ctx)
	caught := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		done <- mirror.Run(mctx, mirror.Options{Root: o.rootID, Dir: dir,
			Hub: o.options(command),
			Synced: func(seq uint64) {
				if seq >= last {
					once.Do(func() { close(caught) })
				}
			}})
	}()
	var ended sync.Once
	stop = func() {
		ended.Do(func() {
			stopMirror()
			<-done
		})
	}
	select {
	case <-caught:
		waitForPipeline(a.ctx, dir)
		return dir, stop, nil
	case err := <-done:
		ended.Do(stopMirror)
		if errors.Is(err, mirror.ErrBusy) {
			return dir, func() {}, a.waitForLines(o, dir, last) // kept by another mirror
		}
		if err == nil {
			err = a.ctx.Err()
		}
		return "", nil, failf("E_MIRROR_FAILED", a.t("remote.cli.error.mirror", "Root", o.rootID, "Err", err.Error()))
	case <-a.ctx.Done():
		stop()
		return "", nil, a.ctx.Err()
	}
}

// mirrorCache is the cache folder of the root the flags name: one per
// hub address and root id, so that two hubs' roots of one id never share.
func (a *app) mirrorCache(o remoteFlags) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(o.hub))
	dir := filepath.Join(base, "daokit", "mirrors", o.rootID+"-"+hex.EncodeToString(sum[:4]))
	return dir, os.MkdirAll(dir, 0o700)
}

// mirrorWait bounds the waits for what another writer brings a mirror.
const mirrorWait = 10 * time.Second

// pollUntil calls ok every remotePoll until it says true, ctx ends or
// mirrorWait passes; it reports whether ok said true.
func pollUntil(ctx context.Context, ok func() bool) bool {
	tick := time.NewTicker(remotePoll)
	defer tick.Stop()
	deadline := time.After(mirrorWait)
	for !ok() {
		select {
		case <-tick.C:
		case <-deadline:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// waitForPipeline waits a little for the leader's pipeline document, which
// the mirror brings beside the events: a root that has none yet is shown
// without one.
func waitForPipeline(ctx context.Context, dir string) {
	pollUntil(ctx, func() bool { return ledger.LoadSnapshot(dir).Pipeline.OK() })
}

// waitForLines waits until the folder another mirror keeps holds last
// events.
func (a *app) waitForLines(o remoteFlags, dir string, last uint64) error {
	caught := pollUntil(a.ctx, func() bool {
		f, err := mirror.OpenFolder(dir)
		if err != nil {
			return false
		}
		_, n, err := f.Lines()
		return err == nil && uint64(n) >= last
	})
	if !caught {
		return failf("E_MIRROR_FAILED", a.t("remote.cli.error.behind", "Root", o.rootID, "Dir", dir))
	}
	return nil
}
