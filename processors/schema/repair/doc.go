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
// The repairs, tried only when the text does not validate as sent, are
// exactly these:
//
//   - JSON text: strip a markdown code fence around the whole text; drop
//     commas that directly precede a closing '}' or ']'. Nothing else.
//   - Key renames, at an object the validator complains about (a missing
//     required property, or a property additionalProperties forbids):
//     an unknown key (one no applicable subschema declares) is renamed to a
//     missing or declared-but-absent property when its words are the same
//     (snake_case, camelCase, PascalCase and kebab-case are one spelling),
//     or, failing that, when it is close: the property's words are a
//     whole-word prefix or suffix of the key's (file_path and filePath to
//     path), or the optimal-string-alignment edit distance of the two,
//     ignoring case, is at most 2 and at most a third of the property's
//     length (so two-letter names are never guessed). A rename happens only
//     when the key has exactly one such property and the property exactly
//     one such key.
//   - Scalar coercion where the validator reports a string at a location
//     whose schema wants an integer, a number or a boolean: a string that is
//     a JSON integer (for integer) or a JSON number (for number), after
//     trimming surrounding white space, becomes that number, with its digits
//     kept exactly; "true" and "false" become booleans. Nothing is ever
//     turned into a string.
//
// Repairs are applied in rounds (each round may expose new, repairable
// failures, such as a renamed property whose value is a quoted number), and
// the result is kept only if the whole value then validates: a repair is
// all or nothing. Repairs are listed in the order they were made; the
// failures of an invalid text are those of the text as sent (a rename that
// was found but not enough shows as "expected path, got file_path"),
// sorted by JSON Pointer with array indices in numeric order.
//
// The work is bounded so that hostile text stays cheap: numbers longer than
// 400 characters or with an exponent beyond ±400 are refused as invalid
// JSON (the validator computes exactly, and 1e999999 would take it a
// second); nesting deeper than MaxDepth is refused; key matching looks at
// names of at most 64 bytes, at most 16 unknown keys and 128 candidate
// properties per object and 64 objects per round; at most 1024 strings are
// converted per round.
//
// Everything here is deterministic: the validator's errors, which come in map
// order, are sorted before anything is decided or reported; no clock,
// randomness or goroutines are involved.
package repair
