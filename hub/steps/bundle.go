package steps

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// bundleMaxAge bounds how long the root's bundles stay in the hub: a
// step's base is published again when a later step needs it.
const bundleMaxAge = 7 * 24 * time.Hour

// BundleBucket is the object store of a root's git bundles: the base
// commits of steps whose agents cannot fetch them from a remote.
func (c *Conn) BundleBucket() string { return c.Root.BundleBucket() }

func (c *Conn) bundles(ctx context.Context) (jetstream.ObjectStore, error) {
	return c.JS.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: c.BundleBucket(), Storage: jetstream.FileStorage, TTL: bundleMaxAge,
	})
}

// PublishBundle puts a git bundle of HEAD of the repository at dir,
// which holds commit, into the root's bundle bucket under commit's
// name, unless it is there already.
func (c *Conn) PublishBundle(ctx context.Context, dir, commit string) error {
	obs, err := c.bundles(ctx)
	if err != nil {
		return err
	}
	if _, err := obs.GetInfo(ctx, commit); err == nil {
		return nil
	} else if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return err
	}
	tmp, err := os.MkdirTemp("", "daokit-bundle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, commit+".bundle")
	// A bundle of HEAD: git refuses one of a bare commit id, and HEAD
	// is the step's base or a descendant of it.
	if out, err := exec.CommandContext(ctx, "git", "-C", dir, "bundle", "create", "--quiet", file, "HEAD").CombinedOutput(); err != nil {
		return fmt.Errorf("git bundle create: %v: %s", err, strings.TrimSpace(string(out)))
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = obs.Put(ctx, jetstream.ObjectMeta{Name: commit}, f)
	return err
}

// FetchBundle writes the bundle of commit from the root's bucket to
// file.
func (c *Conn) FetchBundle(ctx context.Context, commit, file string) error {
	obs, err := c.JS.ObjectStore(ctx, c.BundleBucket())
	if err != nil {
		return err
	}
	return obs.GetFile(ctx, commit, file)
}
