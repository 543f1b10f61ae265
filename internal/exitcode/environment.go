package exitcode

import "strings"

// environmental are phrases with which a test run says it failed because
// of the machine it ran on rather than the code: the locale's encoding, a
// permission test run as root, a network that is not there.
var environmental = []struct{ phrase, cause string }{
	{"'ascii' codec can't", "the locale's encoding is ASCII"},
	{"PermissionError not raised", "a permission test ran as root"},
	{"must not be run as root", "it ran as root"},
	{"Temporary failure in name resolution", "no network"},
	{"Name or service not known", "no network"},
	{"Network is unreachable", "no network"},
	{"Failed to establish a new connection", "no network"},
	{"nodename nor servname provided", "no network"},
}

// Environmental returns the cause a test run's output gives for its
// failure that lies in the machine, not in the code under test, if it
// names one.
func Environmental(out string) (cause string, ok bool) {
	for _, e := range environmental {
		if strings.Contains(out, e.phrase) {
			return e.cause, true
		}
	}
	return "", false
}
