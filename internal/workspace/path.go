package workspace

import (
	"path"
	"strings"
)

// Root resolves paths against a run's workspace root. The zero Root stands
// for a run that declared none.
type Root struct {
	dir     string // cleaned root with forward slashes; "" when none
	windows bool   // the root has a drive letter
}

// NewRoot returns the Root of the workspace ws, an absolute POSIX or
// Windows path, or the zero Root if ws is empty.
func NewRoot(ws string) Root {
	if ws == "" {
		return Root{}
	}
	r := Root{windows: hasDrive(ws)}
	if r.windows {
		ws = strings.ReplaceAll(ws, `\`, "/")
	}
	r.dir = path.Clean(ws)
	return r
}

// Dir returns the cleaned root, with forward slashes, or "" if there is none.
func (r Root) Dir() string { return r.dir }

// Rel returns p normalised relative to the root, and whether it lies inside
// the workspace. A path outside is returned cleaned but otherwise as given,
// for messages. The root itself is ".". An empty p gives ("", true).
func (r Root) Rel(p string) (rel string, inside bool) {
	if p == "" {
		return "", true
	}
	if r.windows {
		if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
			return p, false // UNC: another machine's share
		}
		p = strings.ReplaceAll(p, `\`, "/")
	}
	if r.dir != "" && isHome(p) {
		return p, false
	}
	abs := strings.HasPrefix(p, "/") || hasDrive(p)
	c := path.Clean(p)
	if !abs {
		return c, !climbs(c)
	}
	if r.dir == "" {
		return c, true
	}
	if r.windows && !hasDrive(c) {
		return c, false // rooted, but on which drive?
	}
	if r.dir == "/" {
		if c == "/" {
			return ".", true
		}
		return c[1:], true
	}
	n := len(r.dir)
	switch {
	case len(c) == n && r.equal(c, r.dir):
		return ".", true
	case len(c) > n && c[n] == '/' && r.equal(c[:n], r.dir):
		return c[n+1:], true
	}
	return c, false
}

func (r Root) equal(a, b string) bool {
	if r.windows {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// climbs reports whether the cleaned relative path c leaves its base.
func climbs(c string) bool { return c == ".." || strings.HasPrefix(c, "../") }

// isHome reports whether p starts in the user's home directory, which a
// shell or a tool may expand: "~", "~/x", "~user/x", "$HOME/x", "${HOME}/x".
func isHome(p string) bool {
	if strings.HasPrefix(p, "~") {
		return true
	}
	for _, h := range [...]string{"$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(p, h); ok && (rest == "" || rest[0] == '/') {
			return true
		}
	}
	return false
}

// hasDrive reports whether p starts with a Windows drive, such as "C:\" or
// "c:/".
func hasDrive(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}
