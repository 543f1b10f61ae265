// Package workspace says where a tool call acts: the paths it names (its
// path field and the path-valued keys of its JSON arguments), normalised
// relative to the run's workspace root, and the vocabularies that recognise
// path keys and file-writing tools.
//
// Normalisation follows path.Clean. With a POSIX root, an absolute path
// inside the root becomes relative to it; an absolute path elsewhere, a
// relative path that climbs above the root, and a path that starts with "~"
// or $HOME are outside. With a Windows root (a drive letter, as the wire
// contract allows), backslashes are separators and the root is compared
// without regard to case; UNC paths and rooted paths without a drive are
// outside. Without a root, paths are cleaned and kept as given: absolute
// paths stay absolute, and only a relative path that climbs above its base
// is outside.
//
// Nothing here touches the file system: symbolic links are not resolved,
// which is one reason a guard is not a sandbox.
//
// The functions are pure and do not allocate on the common case (clean
// paths, arguments without escape sequences).
package workspace
