package workspace

// CallPaths calls fn with each path a call names: path (the call's path
// field) first, then every string under a key of args that keys holds, in
// document order, each normalised by root. Empty values are skipped, and so
// are values that look like URLs ("scheme://..."), which share keys such as
// "source" and "target" with paths. fn returns false to stop. CallPaths
// reports whether args was well formed (see Strings).
func CallPaths(root Root, path, args string, keys Set, fn func(raw, rel string, inside bool) bool) bool {
	if path != "" {
		rel, inside := root.Rel(path)
		if !fn(path, rel, inside) {
			return true
		}
	}
	return Strings(args, keys.Has, func(_, v string) bool {
		if v == "" || isURL(v) {
			return true
		}
		rel, inside := root.Rel(v)
		return fn(v, rel, inside)
	})
}

// isURL reports whether s starts with a URL scheme and "://".
func isURL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 1:
			return len(s) >= i+3 && s[i+1] == '/' && s[i+2] == '/'
		default:
			return false
		}
	}
	return false
}
