package workspace

// Vocabulary names what tool calls look like: the argument keys that hold
// paths or patches, and the tools that write files. The guards that read
// paths out of calls share one vocabulary, set once in the policy.
type Vocabulary struct {
	// PathKeys are the argument keys whose values (strings or arrays of
	// strings) are paths.
	PathKeys []string `json:"path_keys"`
	// WriteTools are the tools that create, change, move or delete files.
	WriteTools []string `json:"write_tools"`
	// PatchKeys are the argument keys of write tools whose values may hold
	// a patch (a unified diff or an apply_patch envelope); the files its
	// headers name count as the call's paths.
	PatchKeys []string `json:"patch_keys"`
	// ShellTools are the tools that run a shell command, by name. A run's
	// declared tool whose schema has the shape of a shell tool's is one
	// too (see ShellSchema).
	ShellTools []string `json:"shell_tools"`
	// ShellKeys are the argument keys that hold a shell tool's command: a
	// string, or an array of strings taken as an argument vector.
	ShellKeys []string `json:"shell_keys"`
}

// DefaultVocabulary returns the vocabularies of common agent frameworks.
func DefaultVocabulary() Vocabulary {
	return Vocabulary{PathKeys: DefaultPathKeys(), WriteTools: DefaultWriteTools(), PatchKeys: DefaultPatchKeys(),
		ShellTools: DefaultShellTools(), ShellKeys: DefaultShellKeys()}
}

// DefaultPathKeys returns the argument keys that hold paths unless a policy
// says otherwise. A key's value may be a string or an array of strings.
func DefaultPathKeys() []string {
	return []string{
		"path", "file_path", "filepath", "file", "filename", "dir", "directory",
		"target", "src", "dst", "source", "destination", "paths", "files",
		"old_path", "new_path",
	}
}

// DefaultWriteTools returns the tools that create, change, move or delete
// files unless a policy says otherwise.
func DefaultWriteTools() []string {
	return []string{
		"write_file", "edit_file", "apply_patch", "create_file", "delete_file",
		"move_file", "rename_file", "str_replace", "str_replace_editor",
		"str_replace_based_edit_tool", "insert", "multi_edit", "patch",
		"append_file", "replace_in_file", "write", "edit",
	}
}

// Set is a set of names, such as tools or argument keys.
type Set map[string]struct{}

// NewSet returns the set of names.
func NewSet(names ...[]string) Set {
	s := Set{}
	for _, ns := range names {
		for _, n := range ns {
			s[n] = struct{}{}
		}
	}
	return s
}

// Has reports whether name is in s.
func (s Set) Has(name string) bool {
	_, ok := s[name]
	return ok
}
