package health

import "errors"

// ErrListen is returned by Serve when the address cannot be listened on.
var ErrListen = errors.New("health: cannot listen")
