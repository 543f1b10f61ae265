package schema_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/processors/schema"
)

// goldenPolicy registers tools for the agent class "coder"; the other
// histories declare their own.
func goldenPolicy() schema.Policy {
	p := schema.DefaultPolicy()
	p.Agents = map[string]schema.Registry{"coder": {
		Tools: map[string]json.RawMessage{"read_file": raw(readFile), "grep_search": raw(grepSearch)},
		Docs:  map[string]json.RawMessage{"plan": raw(planDoc)},
	}}
	return p
}

// modes change goldenPolicy for the scenarios named.
var modes = map[string]func(*schema.Policy){
	"validate-only":   func(p *schema.Policy) { p.Mode = schema.ModeValidate },
	"lenient-null":    func(p *schema.Policy) { p.LenientNull = true },
	"unknown-allowed": func(p *schema.Policy) { p.UnknownTools = schema.UnknownAllow },
	"unknown-pass":    func(p *schema.Policy) { p.UnknownTools, p.Schemaless = schema.UnknownAllow, schema.SchemalessPass },
}

// policyFor returns the policy of the scenario name.
func policyFor(name string) schema.Policy {
	p := goldenPolicy()
	if mod := modes[name]; mod != nil {
		mod(&p)
	}
	return p
}

// histories are the scenarios of the golden logs and the conformance kit.
func histories() map[string]*processortest.History {
	hs := map[string]*processortest.History{}

	h := declared("repair")
	h.Call("read_file", valid).Result(false, "package a")
	h.Call("read_file", `{"filePath":"b.go","recursive":"true"}`).Result(false, "package b")
	h.Call("read_file", `{"file_path":"c.go","depth":"ten"}`)
	h.Call("reed_file", `{"path":"c.go"}`)
	h.Call("write_file", "```json\n{\"path\":\"c.go\",\"content\":\"package c\",}\n```").Result(false, "ok")
	hs["repair-then-name"] = h.End(event.StatusCompleted)

	h = declared("attempts")
	h.Call("read_file", invalid).Call("cat", `{"path":"a.go"}`).Call("read_file", `{"path":["a.go"]}`)
	hs["attempts-stop"] = h.Call("read_file", valid).Step()

	h = declared("reset")
	h.Call("read_file", invalid).Call("read_file", invalid).Call("read_file", repairable).Result(false, "x")
	h.Call("read_file", invalid).Call("grep_search", `{"query":"TODO","maxResults":"5"}`).Result(false, "")
	hs["attempts-reset"] = h.Call("grep_search", `{"q":"TODO"}`).Call("grep_search", `{"query":"TODO"}`).End(event.StatusCompleted)

	h = start("docs", "coder", nil, nil)
	doc(h, "plan", `{"steps":["read a.go","fix the bug"]}`)
	doc(h, "plan", `{"Steps":["read a.go"],"done":"false",}`)
	doc(h, "plan", `{"steps":[]}`)
	doc(h, "report", `{"ok":true}`)
	h.Call("read_file", `{"path":"a.go"}`)
	hs["documents"] = doc(h, "plan", `"steps: read a.go"`)

	h = start("broken", "test", []event.Schema{
		{Name: "read_file", Schema: readFile},
		{Name: "deploy", Schema: `{"type":"object","properties":{"env":{"enum":["staging","prod"]},"replicas":{"type":"integer","minimum":1}},"required":["env"],"dependentRequired":{"replicas":["env"]},"additionalProperties":{"$ref":"#/$defs/extra"}}`},
	}, nil)
	hs["broken-schema"] = h.Call("read_file", valid).Call("deploy", `{"env":"prod"}`).Call("read_file", valid)

	// The repairs other harnesses make, each once.
	h = start("harness", "test", []event.Schema{
		{Name: "read_file", Schema: readFile},
		{Name: "read_many", Schema: `{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}},"lines":{"type":"array","items":{"type":"integer"}},"limit":{"type":"integer"}},"required":["paths"],"additionalProperties":false}`},
		{Name: "bash", Schema: `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`},
	}, nil)
	h.Call("bash", "{\"command\": \"cd src\n\tmake\"}").Call("bash", `{command: "ls"}`).Call("bash", `{'command': 'echo "hi"'}`)
	h.Call("bash", "{\u201ccommand\u201d: \u201cpwd\u201d}").Call("read_file", `{"path": "a.go", "recursive": True}`).Call("bash", `{"command": "grep \w a.go"}`)
	h.Call("read_file", `{"path": "a.go", "depth": 1`).Call("bash", `{"command": "cat a.go`).Call("read_file", `{"args": {"path": "a.go"}}`)
	h.Call("read_many", `{"paths": "[\"a.go\", \"b.go\"]"}`).Call("read_many", `{"paths": "a.go", "lines": "7"}`).Call("read_many", `{"paths": ["a.go"], "limit": null}`)
	hs["harness-repairs"] = h.Call("read_file", `{"path": "[README.md](http://README.md)"}`).End(event.StatusCompleted)

	h = processortest.NewHistory("acme", "schemaless")
	h.Call("bash", `{"command": "ls"}`).Call("bash", `{'command': 'ls',}`).Call("bash", `{"command": ls}`).Call("bash", `ls -la`)
	hs["schemaless"] = h.Call("cat", `{"file": "[a.py](http://a.py)"}`).Call("bash", `{"command": `).Call("bash", ``)
	hs["unknown-pass"] = declared("pass").Call("bash", `ls -la`).Call("read_file", `{"path": `).Call("bash", `{"command": `)

	h = declared("validate")
	hs["validate-only"] = h.Call("read_file", valid).Call("read_file", repairable).Call("read_file", `{"path": "a.go",}`).Call("read_file", `{path: 'a.go'}`)

	h = declared("lenient")
	hs["lenient-null"] = h.Call("read_file", `{"path": "a.go", "depth": null}`).Call("read_file", `{"path": "a.go", "depth": null, "recursive": "true"}`).Call("read_file", `{"path": null}`)

	h = declared("unknown")
	hs["unknown-allowed"] = h.Call("mcp_fetch", `{"url": "https://x"}`).Call("mcp_fetch", `{url: "https://x"}`).Call("mcp_fetch", `{"url"`).Call("reed_file", valid)

	return hs
}

func TestGolden(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			c := processors.NewChain(schema.New(policyFor(name)))
			processortest.Golden(t, c, h.Events(), name)
			details(t, c, h.Events(), name)
		})
	}
}

// details compares what the golden log leaves out (the repaired args, the
// diagnostics and the nearest tools of each decision) with
// testdata/<name>.details, rewriting it under the kit's -update flag.
func details(t *testing.T, c *processors.Chain, history []event.Event, name string) {
	t.Helper()
	log := processortest.LogWith(c, history, func(d *event.Decision) string {
		var b strings.Builder
		if d.Args != "" {
			fmt.Fprintf(&b, "      args %s\n", d.Args)
		}
		for _, dg := range d.Diags {
			fmt.Fprintf(&b, "      diag %q want=%q got=%q: %s\n", dg.Path, dg.Want, dg.Got, dg.Msg)
			if dg.Repair != "" {
				fmt.Fprintf(&b, "        repair %s\n", dg.Repair)
			}
		}
		if len(d.Near) > 0 {
			fmt.Fprintf(&b, "      near %s\n", strings.Join(d.Near, " "))
		}
		return b.String()
	})
	processortest.GoldenFile(t, filepath.Join("testdata", name+".details"), log)
}

func TestConformance(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			processortest.Run(t, schema.New(policyFor(name)), h.Events())
		})
	}
}
