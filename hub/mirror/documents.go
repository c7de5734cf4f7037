package mirror

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub/naming"
)

// DocumentBucket returns the root's document bucket, or an error
// wrapping jetstream.ErrBucketNotFound when no leader made it yet.
func DocumentBucket(ctx context.Context, js jetstream.JetStream, names naming.Root) (jetstream.KeyValue, error) {
	return js.KeyValue(ctx, names.DocumentBucket())
}

// RestoreDocuments replaces every document the bucket holds in f with
// the bucket's copy, and returns each one's revision (for a writer's
// compare-and-set).
func RestoreDocuments(ctx context.Context, kv jetstream.KeyValue, f *Folder) (map[string]uint64, error) {
	revs := map[string]uint64{}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for k := range keys.Keys() {
		names = append(names, k)
	}
	for _, k := range names {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := f.ReplaceDocument(k, e.Value()); err != nil {
			return nil, err
		}
		revs[k] = e.Revision()
	}
	return revs, nil
}
