package policy_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/policy"
	"github.com/guardstream/guardstream/processors/processortest"
)

// newRun starts a history of a run in workspace ws under pattern.
func newRun(name, ws, pattern string) *processortest.History {
	h := processortest.NewHistory("acme", name)
	h.Events()[0].Workspace, h.Events()[0].Pattern = ws, pattern
	return h
}

// histories are the scenarios of the golden logs and the conformance kit.
func histories() map[string]*processortest.History {
	hs := map[string]*processortest.History{}

	h := newRun("scope", ws, "code")
	h.Call("read_file", `{"path":"src/main.go"}`).Result(false, "package main")
	h.Call("read_file", `{"path":"`+ws+`/src/util.go"}`).Result(false, "package main")
	h.Call("read_file", `{"path":"README.md"}`)
	h.Call("read_file", `{"path":"src/secrets/token"}`)
	h.Call("read_file", `{"path":"src/../../other/x"}`)
	h.Call("grep", `{"pattern":"TODO"}`)
	h.Call("write_file", `{"path":".git/HEAD"}`)
	h.Call("edit_file", `{"path":"src/main_test.go"}`).Result(false, "ok")
	h.Call("apply_patch", `{"input":"*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** Update File: .git/config\n*** End Patch"}`)
	hs["scope"] = h.End(event.StatusCompleted)

	h = newRun("shell", ws, "code")
	h.Call("bash", `{"command":"go test ./... 2>&1 | tee /tmp/test.log"}`).Result(false, "ok")
	h.Call("bash", `{"command":"rm -rf src/build/ && rm -rf ./src/dist"}`).Result(false, "")
	h.Call("bash", `{"command":"rm -rf build/"}`)
	h.Call("bash", `{"command":"cd / && sudo rm -rf *"}`)
	h.Call("bash", `{"command":"dd if=/dev/zero of=/dev/nvme0n1 bs=1M"}`)
	h.Call("bash", `{"command":"echo \"rm -rf /\" && grep mkfs notes.md"}`).Result(false, "")
	h.Call("bash", `{"command":"cat /etc/os-release ~/.gitconfig"}`).Result(false, "")
	h.Call("bash", `{"command":"git push origin main"}`)
	h.Call("bash", `{"command":"git push --force origin main"}`)
	h.Call("bash", `{"command":"echo ref: refs/heads/x > .git/HEAD"}`)
	hs["shell"] = h.End(event.StatusCompleted)

	h = newRun("changes", ws, "code")
	for i, paths := range [][]string{{"src/a.go"}, {"src/a.go", "src/b.go"}, {ws + "/src/b.go"}, {"src/c.go"}, {"src/d.go"}} {
		h.Call("edit_file", fmt.Sprintf(`{"path":%q}`, paths[0]))
		h.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", i+1), Changes: &event.Changes{Files: int64(len(paths)), Lines: 10, Hunks: 1, Paths: paths}})
	}
	hs["max-changes"] = h.Call("read_file", `{"path":"src/a.go"}`)

	h = newRun("unknown", ws, "refactor-everything")
	hs["unknown-pattern"] = h.Call("read_file", `{"path":"src/a.go"}`).Call("list_dir", `{}`).End(event.StatusFailed)

	h = newRun("strict", ws, "strict")
	h.Call("edit_file", `{"path":"pkg/api_test.go"}`)
	h.Call("edit_file", `{"path":"pkg/api.go"}`).Result(false, "ok")
	hs["strict-tests"] = h.Call("bash", `{"command":"sed -i 's/want/got/' pkg/api_test.go"}`)
	return hs
}

func TestGolden(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			processortest.Golden(t, processors.NewChain(policy.New(testPolicy())), h.Events(), name)
		})
	}
}

func TestConformance(t *testing.T) {
	hs := histories()
	for _, name := range []string{"scope", "shell", "max-changes", "unknown-pattern", "strict-tests"} {
		t.Run(name, func(t *testing.T) {
			processortest.Run(t, policy.New(testPolicy()), hs[name].Events())
		})
	}
}
