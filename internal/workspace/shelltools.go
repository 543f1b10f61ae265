package workspace

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/guardstream/guardstream/event"
)

// DefaultShellTools returns the names of shell tools in common agent
// frameworks.
func DefaultShellTools() []string {
	return []string{"bash", "shell", "sh", "run_command", "exec", "terminal", "run_shell_command", "execute_command"}
}

// DefaultShellKeys returns the argument keys that hold a shell command.
func DefaultShellKeys() []string { return []string{"command", "cmd", "script"} }

// MaxShells bounds the declared tools a run's state remembers as shell
// tools beyond those the vocabulary names.
const MaxShells = 16

// ShellSchema reports whether schema, JSON Schema text, describes the
// arguments of a tool that runs a shell command: an object with a property
// named by keys that takes any string (type string, no enum or const) and
// that the schema requires or that is its only property. An editor tool
// whose "command" picks one of a few operations (an enum) is not one.
func ShellSchema(schema string, keys Set) bool {
	if !mentionsAny(schema, keys) {
		return false // most schemas: decoding them would find no key
	}
	var s struct {
		Properties map[string]struct {
			Type  json.RawMessage `json:"type"`
			Enum  json.RawMessage `json:"enum"`
			Const json.RawMessage `json:"const"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil {
		return false
	}
	for key := range keys {
		p, ok := s.Properties[key]
		if !ok || p.Enum != nil || p.Const != nil || !isString(p.Type) {
			continue
		}
		required := len(s.Properties) == 1
		for _, r := range s.Required {
			required = required || r == key
		}
		if required {
			return true
		}
	}
	return false
}

// mentionsAny reports whether JSON text may have one of keys as an object
// key: whether it has one between quotes, or has escapes, which can spell
// a key otherwise. A key that is not valid UTF-8, or holds U+FFFD, which
// decoding puts for invalid bytes, may be spelled otherwise too.
func mentionsAny(text string, keys Set) bool {
	if strings.IndexByte(text, '\\') >= 0 {
		return true
	}
	for key := range keys {
		if !utf8.ValidString(key) || strings.ContainsRune(key, utf8.RuneError) || quoted(text, key) {
			return true
		}
	}
	return false
}

// quoted reports whether text holds s between double quotes.
func quoted(text, s string) bool {
	for i := 0; i <= len(text); i++ {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return false
		}
		i += j
		if i > 0 && text[i-1] == '"' && i+len(s) < len(text) && text[i+len(s)] == '"' {
			return true
		}
	}
	return false
}

// isString reports whether a JSON Schema type is "string", alone or among
// others.
func isString(t json.RawMessage) bool {
	var one string
	if json.Unmarshal(t, &one) == nil {
		return one == "string"
	}
	var many []string
	if json.Unmarshal(t, &many) == nil {
		for _, x := range many {
			if x == "string" {
				return true
			}
		}
	}
	return false
}

// Shells recognises the calls that run a shell command: calls of a tool
// the vocabulary names a shell tool, or of one the run declared with a
// shell tool's schema (DeclaredShells). Every guard that reads commands
// recognises them the same way through it.
type Shells struct{ tools, keys Set }

// Shells returns the recogniser of v's shell tools.
func (v Vocabulary) Shells() Shells {
	return Shells{tools: NewSet(v.ShellTools), keys: NewSet(v.ShellKeys)}
}

// Is reports whether tool runs shell commands, given the run's declared
// shells.
func (s Shells) Is(tool string, declared []string) bool {
	return s.tools.Has(tool) || slices.Contains(declared, tool)
}

// Command returns the command a call of tool with args runs, as a
// command line (cmd) or an argument vector (argv), if tool is a shell
// tool and its arguments hold a command under one of the shell keys.
func (s Shells) Command(tool, args string, declared []string) (cmd string, argv []string, ok bool) {
	if !s.Is(tool, declared) {
		return "", nil, false
	}
	return Command(args, s.keys.Has)
}

// Declared returns the tools of a run start's declared tools that run
// shell commands though the vocabulary does not name them, at most
// MaxShells, in declared order: those declared of kind shell, and those
// declared without a kind whose schema is a shell tool's (see
// ShellSchema), such as OpenHands' execute_bash. A tool declared of
// another kind (read, edit) is not one, whatever its schema. A run keeps
// them for Is and Command.
func (s Shells) Declared(declared []event.Schema) []string {
	var out []string
	for _, d := range declared {
		if len(out) == MaxShells {
			break
		}
		if s.tools.Has(d.Name) {
			continue
		}
		switch d.Kind {
		case event.ToolShell:
			out = append(out, d.Name)
		case event.ToolRead, event.ToolEdit:
		default: // none, or a kind this version does not know
			if ShellSchema(d.Schema, s.keys) {
				out = append(out, d.Name)
			}
		}
	}
	return out
}

// MaxWriters bounds the declared tools a run's state remembers as write
// tools beyond those the vocabulary names.
const MaxWriters = 16

// DeclaredWriters returns the tools of a run start's declared tools that
// were declared of kind edit and that writes, the vocabulary's write
// tools, does not name: at most MaxWriters, in declared order. A run keeps
// them beside the vocabulary's, so that an editor is known by what the
// agent says it does, not only by its name.
func DeclaredWriters(declared []event.Schema, writes Set) []string {
	var out []string
	for _, d := range declared {
		if len(out) == MaxWriters {
			break
		}
		if d.Kind == event.ToolEdit && !writes.Has(d.Name) {
			out = append(out, d.Name)
		}
	}
	return out
}
