package workspace_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/internal/workspace"
)

func TestRel(t *testing.T) {
	tests := []struct {
		root, p string
		rel     string
		inside  bool
	}{
		{"/ws", "a/b", "a/b", true},
		{"/ws", "./a//b/", "a/b", true},
		{"/ws", "a/../b", "b", true},
		{"/ws", ".", ".", true},
		{"/ws", "/ws", ".", true},
		{"/ws/", "/ws/a", "a", true},
		{"/ws", "/ws/a/../../ws/b", "b", true},
		{"/ws", "/wsx/a", "/wsx/a", false},
		{"/ws", "/etc/passwd", "/etc/passwd", false},
		{"/ws", "..", "..", false},
		{"/ws", "a/../../b", "../b", false},
		{"/ws", "/ws/../b", "/b", false},
		{"/ws", "~", "~", false},
		{"/ws", "~/x", "~/x", false},
		{"/ws", "$HOME/x", "$HOME/x", false},
		{"/ws", "${HOME}", "${HOME}", false},
		{"/ws", "$HOMEx/y", "$HOMEx/y", true},
		{"/ws", `C:\x`, `C:\x`, false},
		{"/", "/etc/x", "etc/x", true},
		{"/", "/", ".", true},
		{"", "/etc/x", "/etc/x", true},
		{"", "a/./b", "a/b", true},
		{"", "../a", "../a", false},
		{"", "~/x", "~/x", true},
		{`C:\ws`, `C:\ws\a\b.go`, "a/b.go", true},
		{`C:\ws`, `c:/WS/a`, "a", true},
		{`C:\ws`, `a\..\..\b`, "../b", false},
		{`C:\ws`, `D:\ws\a`, "D:/ws/a", false},
		{`C:\ws`, `\\srv\share`, `\\srv\share`, false},
		{`C:\ws`, `\x`, "/x", false},
		{"/ws", "", "", true},
	}
	for _, tt := range tests {
		rel, inside := workspace.NewRoot(tt.root).Rel(tt.p)
		if rel != tt.rel || inside != tt.inside {
			t.Errorf("root %q: Rel(%q) = %q, %t; want %q, %t", tt.root, tt.p, rel, inside, tt.rel, tt.inside)
		}
	}
}

func TestStrings(t *testing.T) {
	keys := workspace.NewSet([]string{"path", "paths"})
	tests := []struct {
		args string
		want []string
		ok   bool
	}{
		{`{"path":"a"}`, []string{"a"}, true},
		{` { "x" : 1 , "path" : "a" } `, []string{"a"}, true},
		{`{"paths":["a","b",3,{"path":"c"}]}`, []string{"a", "b", "c"}, true},
		{`{"edits":[{"path":"a"},{"path":"b","x":[1,2,{"y":null}]}]}`, []string{"a", "b"}, true},
		{`{"a":{"b":{"c":{"d":{"path":"deep"}}}}}`, []string{"deep"}, true},
		{`{"a":{"b":{"c":{"d":{"e":{"path":"too deep"}}}}}}`, nil, true},
		{`{"path":"a\"b\\c\u00e9\ud83d\ude00\n"}`, []string{"a\"b\\c\u00e9\U0001F600\n"}, true},
		{`{"pa\u0074h":"escaped key"}`, []string{"escaped key"}, true},
		{`{"x":"path","y":["path"]}`, nil, true},
		{``, nil, true},
		{`{}`, nil, true},
		{`[]`, nil, false},
		{`{"path":"a"`, []string{"a"}, false},
		{`{"path":"a"} x`, []string{"a"}, false},
		{`{not json`, nil, false},
		{`{"x":tru}`, nil, false},
		{`{"x":01x}`, nil, false},
		{`{"path":"a\q"}`, nil, false},
	}
	for _, tt := range tests {
		var got []string
		ok := workspace.Strings(tt.args, keys.Has, func(_, v string) bool { got = append(got, v); return true })
		if !slices.Equal(got, tt.want) || ok != tt.ok {
			t.Errorf("Strings(%s) = %q, %t; want %q, %t", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCommand(t *testing.T) {
	keys := workspace.NewSet([]string{"command", "cmd"})
	tests := []struct {
		args  string
		cmd   string
		argv  []string
		found bool
	}{
		{`{"command":"ls -la"}`, "ls -la", nil, true},
		{`{"cwd":"x","cmd":["ls","-la"],"command":"no"}`, "", []string{"ls", "-la"}, true},
		{`{"cmd":["ls",1,"x"]}`, "", []string{"ls", "x"}, true},
		{`{"x":1}`, "", nil, false},
	}
	for _, tt := range tests {
		cmd, argv, found := workspace.Command(tt.args, keys.Has)
		if cmd != tt.cmd || !slices.Equal(argv, tt.argv) || found != tt.found {
			t.Errorf("Command(%s) = %q, %q, %t", tt.args, cmd, argv, found)
		}
	}
}

func TestCallPaths(t *testing.T) {
	var got []string
	root := workspace.NewRoot("/ws")
	ok := workspace.CallPaths(root, "/ws/a", `{"src":"https://x/y","dst":"../b","file":"","files":["c"]}`, workspace.NewSet(workspace.DefaultPathKeys()),
		func(raw, rel string, inside bool) bool {
			got = append(got, raw+"→"+rel+map[bool]string{true: "", false: "!"}[inside])
			return true
		})
	if want := []string{"/ws/a→a", "../b→../b!", "c→c"}; !ok || !slices.Equal(got, want) {
		t.Errorf("CallPaths = %q, %t; want %q", got, ok, want)
	}
}

func TestNoAllocation(t *testing.T) {
	root := workspace.NewRoot("/home/dev/proj")
	keys := workspace.NewSet(workspace.DefaultPathKeys())
	args := `{"path":"/home/dev/proj/src/pkg/file.go","offset":10,"limit":200,"opts":{"follow":true}}`
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		workspace.CallPaths(root, "", args, keys, func(raw, rel string, inside bool) bool {
			n += len(rel)
			return inside
		})
	})
	if allocs != 0 {
		t.Errorf("CallPaths allocates %v times on a plain call", allocs)
	}
	if n == 0 {
		t.Fatal("no path seen")
	}
}

func FuzzStrings(f *testing.F) {
	for _, s := range []string{`{"path":"a"}`, `{"paths":["a",{"path":"b"}]}`, `{"a":[[[[[[{}]]]]]]}`, `{"path":"\u12"}`} {
		f.Add(s)
	}
	keys := workspace.NewSet([]string{"path", "paths"})
	f.Fuzz(func(t *testing.T, s string) {
		ok := workspace.Strings(s, keys.Has, func(_, v string) bool { return true })
		workspace.Command(s, keys.Has)
		// Agree with encoding/json on which inputs are JSON objects.
		var obj map[string]any
		isObj := json.Unmarshal([]byte(s), &obj) == nil && obj != nil
		if strings.TrimSpace(s) != "" && ok != isObj {
			t.Errorf("Strings(%q) reports well-formed %t; encoding/json says %t", s, ok, isObj)
		}
	})
}

func TestPatchPaths(t *testing.T) {
	tests := []struct {
		text string
		want []string // "!" in front of deleted paths
	}{
		{"diff --git a/src/a.go b/src/a.go\n--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-x\n+y\n", []string{"src/a.go"}},
		{"--- a/old.go\n+++ /dev/null\n", []string{"!old.go"}},
		{"--- /dev/null\n+++ b/new.go\n", []string{"new.go"}},
		{"--- x.c\t2024-01-01 00:00:00\r\n+++ x.c\t2024-01-02 00:00:00\r\n", []string{"x.c"}},
		{"*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: .git/HEAD\n*** Move to: b.txt\n*** Delete File: c_test.go\n*** End Patch", []string{"a.txt", ".git/HEAD", "b.txt", "!c_test.go"}},
		{"just some text\n--- not a header because no plus line", nil},
	}
	for _, tt := range tests {
		var got []string
		workspace.PatchPaths(tt.text, func(p string, deleted bool) bool {
			if deleted {
				p = "!" + p
			}
			got = append(got, p)
			return true
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("PatchPaths(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	keys := workspace.NewSet([]string{"path"})
	deep := `{"a":` + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20) + `,"path":"p"}`
	var got []string
	ok := workspace.Strings(deep, keys.Has, func(_, v string) bool { got = append(got, v); return true })
	if !ok || !slices.Equal(got, []string{"p"}) {
		t.Errorf("deeply nested arguments: %q, %t", got, ok)
	}
	if workspace.Strings(`{"a":`+strings.Repeat("[", 1<<20), keys.Has, func(_, v string) bool { return true }) {
		t.Error("unclosed nesting reported well formed")
	}
}
