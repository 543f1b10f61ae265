package runner

import "errors"

var (
	// errPublish wraps a publish the server did not confirm.
	errPublish = errors.New("runner: publish not stored")
	// errFenced: a run's snapshot changed under us, so another consumer
	// owns the partition now.
	errFenced = errors.New("runner: run state was written by another consumer")
)
