package workspace_test

import (
	"slices"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/workspace"
)

func TestShellSchema(t *testing.T) {
	keys := workspace.NewSet(workspace.DefaultShellKeys())
	tests := []struct {
		name, schema string
		want         bool
	}{
		{"mini-swe-agent's bash", `{"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}`, true},
		{"an execute_bash in OpenHands' shape", `{"type":"object","properties":{"command":{"type":"string","description":"The bash command to run."},` +
			`"is_input":{"type":"string","enum":["true","false"]},"timeout":{"type":"number"}},"required":["command"]}`, true},
		{"the only property, not required", `{"type":"object","properties":{"cmd":{"type":"string"}}}`, true},
		{"a nullable string", `{"type":"object","properties":{"script":{"type":["string","null"]}},"required":["script"]}`, true},
		{"an editor whose command is an operation", `{"type":"object","properties":{"command":{"type":"string","enum":["view","create","str_replace","insert","undo_edit"]},` +
			`"path":{"type":"string"}},"required":["command","path"]}`, false},
		{"an optional command beside others", `{"type":"object","properties":{"command":{"type":"string"},"path":{"type":"string"}},"required":["path"]}`, false},
		{"not a string", `{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"]}`, false},
		{"no such key", `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`, false},
		{"a key that starts like one", `{"type":"object","properties":{"commands":{"type":"string"}},"required":["commands"]}`, false},
		{"the key spelled with an escape", `{"type":"object","properties":{"\u0063md":{"type":"string"}},"required":["cmd"]}`, true},
		{"the key only as a value", `{"type":"object","properties":{"q":{"type":"string","description":"command"}},"required":["q"]}`, false},
		{"not JSON", `{`, false},
		{"no schema", ``, false},
	}
	for _, tt := range tests {
		if got := workspace.ShellSchema(tt.schema, keys); got != tt.want {
			t.Errorf("%s: ShellSchema = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !workspace.ShellSchema(`{"properties":{"":{"type":"string"}}}`, workspace.NewSet([]string{""})) {
		t.Error("a shell key may be empty")
	}
}

func TestShellsDeclared(t *testing.T) {
	v := workspace.DefaultVocabulary()
	cmd := `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`
	got := v.Shells().Declared([]event.Schema{{Name: "bash", Schema: cmd}, {Name: "execute_bash", Schema: cmd},
		{Name: "str_replace_editor", Schema: `{"properties":{"command":{"enum":["view"]}}}`}, {Name: "finish", Schema: `{}`}})
	if !slices.Equal(got, []string{"execute_bash"}) {
		t.Errorf("Declared = %q, want [execute_bash] (bash is named by the vocabulary)", got)
	}
}

// TestDeclaredKinds: a tool's declared kind goes before its schema. A
// shell tool whose command key has an enum in its schema, or no schema at
// all, is one when declared so; a search tool with a free-text "command"
// declared read is not; an editor declared edit is a write tool.
func TestDeclaredKinds(t *testing.T) {
	v := workspace.DefaultVocabulary()
	cmd := `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`
	declared := []event.Schema{
		{Name: "run", Kind: event.ToolShell},
		{Name: "grep_repo", Schema: cmd, Kind: event.ToolRead},
		{Name: "patch_file", Schema: cmd, Kind: event.ToolEdit},
		{Name: "execute_bash", Schema: cmd, Kind: "later"}, // unknown: the schema decides
		{Name: "edit_file", Kind: event.ToolEdit},          // named by the vocabulary already
		{Name: "bash", Kind: event.ToolShell},              // likewise
	}
	if got := v.Shells().Declared(declared); !slices.Equal(got, []string{"run", "execute_bash"}) {
		t.Errorf("Declared = %q, want [run execute_bash]", got)
	}
	if got := workspace.DeclaredWriters(declared, workspace.NewSet(v.WriteTools)); !slices.Equal(got, []string{"patch_file"}) {
		t.Errorf("DeclaredWriters = %q, want [patch_file]", got)
	}
	sh := v.Shells()
	if cmd, _, ok := sh.Command("run", `{"command":"rm -rf /"}`, sh.Declared(declared)); !ok || cmd != "rm -rf /" {
		t.Errorf("Command of the declared shell: %q, %v", cmd, ok)
	}
}
