// Package schema is the schema guard: it checks every tool call's arguments
// against the JSON Schema (draft 2020-12) of its tool, and every structured
// document a step produces against its declared schema, before they are
// used.
//
// # Registry
//
// The tools a run may call come from two places: the policy, which
// registers schemas for every agent class (Policy.Default) and for one
// class (Policy.Agents, extending and overriding the default by name), and
// the run's own run_start, whose tools extend or override the policy's by
// name. Documents work the same way with the policy's and the run start's
// docs. A tool registered with empty schema text accepts any JSON
// arguments.
//
// A run that declares its own tool or document schemas carries them, as
// JSON text, in its state (State.Tools, State.Docs): they are part of what
// the run is, and a consumer that takes the run over must have them. The
// compiled form is not state; the Guard keeps a memo of compiled schemas
// keyed by their text, which only saves work: same input, same output.
//
// Finding a call's schema does not grow with what is registered: a map
// lookup among the policy's schemas, a binary search among the run's (at
// most event.MaxDeclared), and, for a run's, one memo lookup by its text.
// Together they are a few per cent of checking a call, which validation
// itself dominates; BenchmarkRegisteredTools shows the cost the same with
// 1 and 1,000 registered tools. What does grow with the tools a run
// declares is its run start, where the guards that read shell commands
// look for shell tools among them (workspace.Shells.Declared).
//
// # Which calls are checked
//
//   - A call of a registered tool is checked against the tool's schema.
//   - A call of a tool nothing registers, in a run for which tools are
//     registered, is rejected with UNKNOWN_TOOL when Policy.UnknownTools is
//     "reject" (the default); with "allow" it is a call of a tool without
//     a schema.
//   - A call of a tool without a schema (every call of a run for which no
//     tool is registered, and unknown tools allowed) has its arguments
//     checked to be JSON when Policy.Schemaless is "json" (the default),
//     with the repairs of JSON text and markdown_link (repair.CheckSyntax);
//     with "pass" it is not checked at all.
//   - A step's document is checked against the document schema it names;
//     a run for which no document schema is registered has its documents
//     unchecked.
//
// # Modes
//
// Policy.Mode "repair" (the default) makes the repairs Policy.Repairs names
// (package repair describes them; every one but truncated_string by
// default); "validate" makes none, so whatever breaks a schema, or is not
// JSON, is refused. Policy.LenientNull treats null for an optional
// property as absent, in either mode.
//
// # Decisions
//
//   - A call of an unknown tool is rejected with UNKNOWN_TOOL; Near lists
//     up to three registered tools nearest by edit distance (ties broken by
//     name), and the message names them ("no tool named reed_file; did you
//     mean read_file?") or, when none is close, lists the registered tools.
//   - Arguments that are valid as sent are allowed as sent.
//   - Arguments the repairs make fit are answered with a repair whose Args
//     is the repaired JSON (keys sorted, compact) and whose Diags say what
//     was changed, each naming its repair (Diag.Repair). Later processors
//     see the repaired call.
//   - Arguments that cannot be repaired are rejected with INVALID_ARGS;
//     Diags name up to five failures of the arguments as sent, sorted by
//     path, each with its JSON Pointer, what the schema wants and what was
//     found ("expected path, got file_path" when a key was probably meant
//     as a missing property). The message summarises the first.
//   - A tool whose schema does not compile makes its calls invalid
//     (INVALID_ARGS), with a diagnostic that says where compiling failed.
//   - A step with a doc and a schema name is checked the same way: a
//     repair decision (not a verdict: a step is not a call) offers the
//     repaired document in Args; an unrepairable document, or a schema
//     name nothing registers, is rejected with INVALID_OUTPUT.
//
// # Attempts
//
// Invalid calls in a row (unknown tools, unrepairable arguments, and calls
// of a tool whose schema is broken) are counted; a valid or a repaired call
// resets the count, and so does a checked call of a tool without a schema
// (one that is not checked leaves it as it is). With Policy.MaxAttempts at its default of 2, the first
// and second invalid calls are rejected and the third stops the run with
// SYSTEM_ERROR, outcome failed, carrying the last call's diagnostics and
// the counters invalid and max_attempts. Documents have a count of their
// own, with the same limit.
//
// Advice: the rejection that uses up the last attempt (the second, by
// default) comes with a fix_args steer constraint carrying the same
// diagnostics, so the agent loop hears before its next model step that one
// more invalid call ends the run. Earlier rejections get no advice: they
// answer the call already, with the diagnostics, and advising on each
// would only repeat them.
//
// # Determinism
//
// Apply uses no clock, randomness or goroutines, and nothing it emits
// depends on map order: registries are walked in name order, and the
// validator's errors, which come in map order, are sorted before they are
// used. The memo of compiled schemas is safe for concurrent use and bounded.
package schema
