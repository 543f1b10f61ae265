package loop_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/processortest"
)

// act is one step of an agent: a tool call and its result, reported as
// the wire asks (err for any non-zero exit code).
type act struct {
	tool, args string
	exit       int64
	out        string
}

// The tools OpenHands' CodeActAgent declares, with its execute_bash and
// str_replace_editor schemas (openhands/agenthub/codeact_agent/tools).
var openHandsTools = []event.Schema{
	{Name: "execute_bash", Schema: `{"type":"object","properties":{"command":{"type":"string","description":"The bash command to run."},` +
		`"is_input":{"type":"string","enum":["true","false"]},"timeout":{"type":"number"}},"required":["command"]}`},
	{Name: "str_replace_editor", Schema: `{"type":"object","properties":{"command":{"type":"string","enum":["view","create","str_replace","insert","undo_edit"]},` +
		`"path":{"type":"string"},"file_text":{"type":"string"},"old_str":{"type":"string"},"new_str":{"type":"string"}},"required":["command","path"]}`},
	{Name: "think", Schema: `{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}`},
	{Name: "finish", Schema: `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`},
}

// bash is an execute_bash act.
func bash(cmd string, exit int64, out string) act {
	return act{"execute_bash", fmt.Sprintf(`{"command":%q,"is_input":"false"}`, cmd), exit, out}
}

// editor is a str_replace_editor act.
func editor(command, path string) act {
	return act{"str_replace_editor", fmt.Sprintf(`{"command":%q,"path":%q}`, command, path), 0, "ok"}
}

const repo = "/workspace/django__django__3.1"

// openHandsFix is the shape of an OpenHands run that fixes a Django issue
// (SWE-bench style): it looks around with the shell, four commands in a
// row, writes a reproduction with the editor, sees it fail, thinks, edits,
// and checks the fix with the shell, four commands in a row again.
var openHandsFix = []act{
	editor("view", repo),
	bash("cd "+repo+` && grep -rn "def resolve_lookup_value" django/`, 0, "django/db/models/sql/query.py:1053:    def resolve_lookup_value(self, value, can_reuse, allow_joins):"),
	bash("sed -n '1050,1090p' "+repo+"/django/db/models/sql/query.py", 0, "    def resolve_lookup_value(self, value, can_reuse, allow_joins):\n        if hasattr(value, 'resolve_expression'):"),
	bash("cd "+repo+" && git log --oneline -1 -- django/db/models/sql/query.py", 0, "8be79984dc Fixed #30687 -- Fixed using of OuterRef() expressions in distance lookups."),
	bash(`grep -rn "resolve_lookup_value" `+repo+"/tests | head -20", 1, ""), // grep found nothing: an answer
	editor("create", "/workspace/reproduce.py"),
	bash("cd /workspace && python reproduce.py", 1, "Traceback (most recent call last):\n  File \"reproduce.py\", line 12, in <module>\nTypeError: __new__() missing 1 required positional argument: 'far'"),
	{"think", `{"thought":"The named tuple is rebuilt from a generator; it needs the values unpacked."}`, 0, "Your thought has been logged."},
	editor("str_replace", repo+"/django/db/models/sql/query.py"),
	bash("cd /workspace && python reproduce.py", 0, "Query ran: Range(near=1, far=2)"),
	bash("cd "+repo+"/tests && ./runtests.py queries.test_query -v 1", 0, "Ran 14 tests in 0.012s\n\nOK"),
	bash("cd "+repo+"/tests && ./runtests.py lookup -v 1", 0, "Ran 121 tests in 0.534s\n\nOK"),
	bash("cd "+repo+" && git diff", 0, "diff --git a/django/db/models/sql/query.py b/django/db/models/sql/query.py"),
	{"finish", `{"message":"Fixed resolve_lookup_value for named tuples."}`, 0, ""},
}

// openHandsStuck is an OpenHands run that cannot get its reproduction to
// import Django and tries one shell command after another.
var openHandsStuck = []act{
	editor("create", "/workspace/reproduce.py"),
	bash("cd /workspace && python reproduce.py", 1, "ModuleNotFoundError: No module named 'django'"),
	bash("pip install -e "+repo, 1, "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied"),
	bash("cd "+repo+` && python -c "import django"`, 1, "ModuleNotFoundError: No module named 'django'"),
	bash("PYTHONPATH="+repo+" python /workspace/reproduce.py", 1, "ImportError: cannot import name 'Range' from 'reproduce'"),
	bash("ls /workspace", 0, "django__django__3.1  reproduce.py"),
}

// TestSameToolHint runs the default same_tool rule over the tool use of
// agents that declare several tools but do most of their work with one:
// it hints at another approach only when the one tool keeps failing.
func TestSameToolHint(t *testing.T) {
	reads := []act{}
	for _, f := range []string{"src/api.ts", "src/client.ts", "src/retry.ts", "src/types.ts", "test/api.test.ts"} {
		reads = append(reads, act{"read_file", fmt.Sprintf(`{"path":%q}`, f), 0, "export function ..."})
	}
	failingBash := slices.Clone(openHandsStuck[1:5])
	for i := range failingBash {
		failingBash[i].tool = "bash"
	}
	tests := []struct {
		name  string
		tools []event.Schema
		acts  []act
		// hinted lists the acts (from 1) that draw vary_approach; before,
		// where it differs, those the earlier rule drew it on, which counted
		// every call of one tool with varying arguments, whatever its
		// result.
		hinted, before []int
	}{
		{"OpenHands fixing an issue, the shell four times in a row, twice", openHandsTools, openHandsFix, nil, []int{5, 13}},
		{"OpenHands stuck: the shell failing four times in a row, with different commands", openHandsTools, openHandsStuck, []int{5}, []int{5}},
		{"cline reading five files in a row", []event.Schema{{Name: "read_file"}, {Name: "write_to_file"}, {Name: "execute_command"}}, reads, nil, []int{4}},
		{"a single-tool agent failing four times is never told to use another tool", []event.Schema{{Name: "bash"}}, failingBash, nil, nil},
	}
	current := loop.DefaultPolicy()
	before := loop.DefaultPolicy()
	before.Rules[slices.IndexFunc(before.Rules, func(r loop.Rule) bool { return r.Name == "same_tool" })] = loop.Rule{
		Name: "same_tool", Identity: []loop.Field{loop.FieldTool}, Unit: loop.UnitRound, Varied: true, MinTools: 2,
		Ladder: []loop.Step{{At: 4, Do: loop.DoAdvise, Steer: event.SteerVaryApproach}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := processortest.NewHistory("acme", "r")
			h.Events()[0].Tools = tt.tools
			actOf := map[int64]int{} // the act of each call and result, by seq
			for i, a := range tt.acts {
				h.Step()
				h.Call(a.tool, a.args)
				actOf[h.Seq()] = i + 1
				resultExit(h, a.exit != 0, a.out, a.exit)
				actOf[h.Seq()] = i + 1
			}
			hinted := func(p loop.Policy) []int {
				var acts []int
				for seq, got := range decide(p, h) {
					if strings.Contains(got, string(event.SteerVaryApproach)) {
						acts = append(acts, actOf[seq])
					}
				}
				slices.Sort(acts)
				return acts
			}
			if got := hinted(current); !slices.Equal(got, tt.hinted) {
				t.Errorf("vary_approach at acts %v, want %v", got, tt.hinted)
			}
			if tt.before == nil {
				tt.before = tt.hinted
			}
			if got := hinted(before); !slices.Equal(got, tt.before) {
				t.Errorf("the earlier rule drew vary_approach at acts %v, want %v", got, tt.before)
			}
		})
	}
}
