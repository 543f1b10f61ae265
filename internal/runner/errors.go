package runner

import "errors"

var (
	// errPublish wraps a publish the server did not confirm.
	errPublish = errors.New("runner: publish not stored")
	// errFenced: a run's snapshot or the checkpoint changed under us, so
	// another instance owns the partition now.
	errFenced = errors.New("runner: run state was written by another instance")
	// errUnpinned: the server pinned the partition to another instance.
	errUnpinned = errors.New("runner: the server pinned the partition to another instance")
	// errConsumerGone: the partition's consumer was deleted.
	errConsumerGone = errors.New("runner: the partition's consumer was deleted")
)
