// Package repair checks JSON text against a JSON Schema (draft 2020-12) the
// way the schema guard needs it: validate, try a few cheap repairs when the
// text does not fit, and otherwise name what failed.
//
// Compile turns schema text into a Schema; a schema that does not compile is
// not an error but a Schema whose Broken method says where compiling failed,
// so a bad schema declared by an agent becomes a diagnostic, never a panic.
// Schema.Check returns one of three results:
//
//   - Valid: the text is JSON that satisfies the schema, as sent;
//   - Repaired: the text satisfies the schema after the repairs listed in
//     Diags; Args is the repaired JSON, encoded canonically (keys sorted,
//     no insignificant whitespace);
//   - Invalid: Diags name up to MaxDiags failures of the text as sent.
//
// CheckSyntax does the same for text no schema describes: it must be JSON.
//
// # Repairs
//
// Each repair has a name (Repair, its String), and Options.Repairs says
// which Check may make; the diagnostics of a repaired text name theirs in
// Diag.Repair. With no repairs Check only validates. Text that is JSON and
// satisfies the schema is never changed, with one exception: a markdown
// auto-link in a path parameter (MarkdownLink), which is a valid string but
// never a path. The repairs of JSON text, tried only when the text does not
// parse, each only where parsing fails:
//
//   - code_fence: a markdown code fence around the whole text is stripped.
//   - trailing_comma: a comma before '}' or ']' (or before the end of the
//     text, with missing_closers) is dropped.
//   - control_chars: a literal control character (a newline, a tab) inside
//     a string is kept as the character it is.
//   - bare_keys: an object key of letters, digits, '_', '$' and '-' without
//     quotes, followed by a colon, is a key.
//   - quotes: a string in single quotes ('a', with \' for a quote) or in
//     smart quotes (“a”, ‘a’) is a string; smart quotes inside a string in
//     ASCII double quotes are characters of it.
//   - python_literals: True, False and None are true, false and null.
//   - bad_escapes: a backslash before a character no JSON escape starts
//     with (C:\users) is a backslash.
//   - missing_closers: objects and arrays the text leaves open are closed,
//     when the text ends after a complete value or an opening bracket.
//   - truncated_string: a string the text ends in is closed (with
//     missing_closers for the containers). Not among DefaultRepairs: such a
//     string was most likely cut off, and the tool would get part of it.
//
// The repairs of values, made when the value breaks the schema, at the
// places the validator complains about:
//
//   - unwrap: an object whose only member is one of args, arguments, input,
//     kwargs, parameters or params, which the schema does not declare, and
//     whose value is an object (or JSON text of one), is replaced by that
//     object.
//   - parse_string: a string where the schema wants an array or an object,
//     whose trimmed text is the JSON of one, is replaced by it.
//   - coerce_scalar: a string where the schema wants an integer, a number
//     or a boolean: a string that is a JSON integer (for integer) or a JSON
//     number (for number), after trimming surrounding white space, becomes
//     that number, with its digits kept exactly; "true" and "false" become
//     booleans. Nothing is ever turned into a string.
//   - wrap_array: a string, number or boolean where the schema wants an
//     array becomes an array of it (after parse_string and coerce_scalar are
//     tried).
//   - drop_null: null for a property that no applicable subschema requires,
//     where the schema does not allow null, is dropped.
//   - rename_key: at an object the validator complains about (a missing
//     required property, or a property additionalProperties forbids), an
//     unknown key (one no applicable subschema declares) is renamed to a
//     missing or declared-but-absent property when its words are the same
//     (snake_case, camelCase, PascalCase and kebab-case are one spelling),
//     or, failing that, when it is close: the property's words are a
//     whole-word prefix or suffix of the key's (file_path and filePath to
//     path), or the optimal-string-alignment edit distance of the two,
//     ignoring case, is at most 2 and at most a third of the property's
//     length (so two-letter names are never guessed). A rename happens only
//     when the key has exactly one such property and the property exactly
//     one such key.
//
// And markdown_link: in the members Options.PathKeys names (strings, or
// arrays of strings), a markdown auto-link whose text is its address less
// the scheme ("[a.py](http://a.py)", case aside, also inside a longer
// path) or an angle-bracket link to a bare name ("<http://a.py>") is
// replaced by the name, until none is left.
//
// Options.LenientNull is a mode, not a repair: null for an optional
// property counts as absent, so arguments whose only fault is such nulls
// are valid as sent; when other repairs rewrite them, the nulls are dropped
// too and named drop_null.
//
// Repairs of values are applied in rounds (each round may expose new,
// repairable failures, such as a renamed property whose value is a quoted
// number), and the result is kept only if the whole value then validates: a
// repair is all or nothing, and repairing a repaired text changes nothing.
// Repairs are listed in the order they were made: the text repairs in the
// order above, then each round's in path order; the failures of an invalid
// text are those of the text as sent (a rename that was found but not
// enough shows as "expected path, got file_path"), sorted by JSON Pointer
// with array indices in numeric order.
//
// The work is bounded so that hostile text stays cheap: numbers longer than
// 400 characters or with an exponent beyond ±400 are refused as invalid
// JSON (the validator computes exactly, and 1e999999 would take it a
// second); nesting deeper than MaxDepth is refused, and no repair nests
// deeper (a string is not parsed into a member if it would); key matching
// looks at names of at most 64 bytes, at most 16 unknown keys and 128
// candidate properties per object and 64 objects per round; at most 1024 values are
// converted or dropped per round; a markdown link's text and address are at
// most 256 bytes, and a string that still holds links after 8 passes is
// left as it is.
//
// Everything here is deterministic: the validator's errors, which come in map
// order, are sorted before anything is decided or reported; no clock,
// randomness or goroutines are involved.
package repair
