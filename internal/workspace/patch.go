package workspace

import "strings"

// DefaultPatchKeys returns the argument keys of write tools whose values
// may hold a patch, unless a policy says otherwise.
func DefaultPatchKeys() []string { return []string{"patch", "diff", "input"} }

// PatchPaths calls fn with each path a patch names, in order, and whether
// the patch deletes it. It reads unified diff headers ("--- a/x",
// "+++ b/x", with git's a/ and b/ prefixes removed and /dev/null skipped; a
// file whose "+++" side is /dev/null is deleted) and the envelope of the
// apply_patch tool ("*** Add File: x", "*** Update File: x", "*** Delete
// File: x", "*** Move to: x"). Text that is not a patch names no path. fn
// returns false to stop.
func PatchPaths(text string, fn func(path string, deleted bool) bool) {
	var minus string // the path of the last "---" header
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSuffix(line, "\r")
		var p string
		deleted := false
		switch {
		case strings.HasPrefix(line, "--- "):
			minus = diffPath(line[4:], "a/")
			continue
		case strings.HasPrefix(line, "+++ "):
			p = diffPath(line[4:], "b/")
			if p == "" {
				p, deleted = minus, true
			}
			minus = ""
		case strings.HasPrefix(line, "*** Add File: "):
			p = line[len("*** Add File: "):]
		case strings.HasPrefix(line, "*** Update File: "):
			p = line[len("*** Update File: "):]
		case strings.HasPrefix(line, "*** Delete File: "):
			p, deleted = line[len("*** Delete File: "):], true
		case strings.HasPrefix(line, "*** Move to: "):
			p = line[len("*** Move to: "):]
		}
		if p = strings.TrimSpace(p); p != "" && !fn(p, deleted) {
			return
		}
	}
}

// diffPath returns the path of a unified diff header, without its git
// prefix and timestamp, or "" for /dev/null.
func diffPath(h, prefix string) string {
	if i := strings.IndexByte(h, '\t'); i >= 0 {
		h = h[:i] // a timestamp follows
	}
	h = strings.TrimSpace(h)
	if h == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(h, prefix)
}
