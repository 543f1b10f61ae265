package repair

import "slices"

// Repair names one repair Check can make. Its name is what policies list
// and what a repair's diagnostics carry in Diag.Repair.
type Repair uint8

// The repairs, in the order a result lists the text repairs. The first
// group mends JSON text that does not parse; the second mends values that
// parse but break the schema; MarkdownLink mends path parameters.
const (
	CodeFence       Repair = iota // a markdown code fence around the whole text
	TrailingComma                 // a comma before a closing bracket
	ControlChars                  // a literal newline or other control character inside a string
	BareKeys                      // an object key without quotes
	Quotes                        // a string in single or smart quotes
	PythonLiterals                // True, False or None for true, false or null
	BadEscapes                    // a backslash before a character no escape starts with
	MissingClosers                // objects and arrays the text leaves open
	TruncatedString               // a string the text ends in
	Unwrap                        // the arguments under a single wrapper key such as "args"
	ParseString                   // an array or object sent as JSON text in a string
	WrapArray                     // a single value where the schema wants an array
	DropNull                      // null for an optional property
	RenameKey                     // a misspelt key
	CoerceScalar                  // a number or boolean sent as a string
	MarkdownLink                  // a markdown auto-link around a path
	numRepairs
)

var repairNames = [numRepairs]string{
	CodeFence: "code_fence", TrailingComma: "trailing_comma", ControlChars: "control_chars", BareKeys: "bare_keys",
	Quotes: "quotes", PythonLiterals: "python_literals", BadEscapes: "bad_escapes", MissingClosers: "missing_closers",
	TruncatedString: "truncated_string", Unwrap: "unwrap", ParseString: "parse_string", WrapArray: "wrap_array",
	DropNull: "drop_null", RenameKey: "rename_key", CoerceScalar: "coerce_scalar", MarkdownLink: "markdown_link",
}

// String returns the repair's name, such as "trailing_comma".
func (r Repair) String() string {
	if r >= numRepairs {
		return "unknown"
	}
	return repairNames[r]
}

// ParseRepair returns the repair with the given name.
func ParseRepair(name string) (Repair, bool) {
	i := slices.Index(repairNames[:], name)
	return Repair(i), i >= 0
}

// Names returns the name of every repair, in order.
func Names() []string { return slices.Clone(repairNames[:]) }

// Set is a set of repairs.
type Set uint32

// SetOf returns the set of rs.
func SetOf(rs ...Repair) Set {
	var s Set
	for _, r := range rs {
		s |= 1 << r
	}
	return s
}

// Has reports whether r is in s.
func (s Set) Has(r Repair) bool { return s&(1<<r) != 0 }

// textRepairs are the repairs of JSON text that does not parse.
var textRepairs = SetOf(CodeFence, TrailingComma, ControlChars, BareKeys, Quotes, PythonLiterals, BadEscapes, MissingClosers, TruncatedString)

// DefaultRepairs returns every repair but TruncatedString: a string the
// text ends in was most likely cut off (the model ran out of tokens), and
// closing it would hand the tool a plausible but wrong value.
func DefaultRepairs() Set { return SetOf(repairsBut(TruncatedString)...) }

func repairsBut(left Repair) []Repair {
	var rs []Repair
	for r := range numRepairs {
		if r != left {
			rs = append(rs, r)
		}
	}
	return rs
}

// Options say what Check and CheckSyntax may do beyond validating.
type Options struct {
	// Repairs are the repairs they may make; with none they only
	// validate.
	Repairs Set
	// LenientNull treats null for an optional property that does not
	// allow null as if the property were absent: arguments whose only
	// fault is such nulls are valid as sent.
	LenientNull bool
	// PathKeys are the argument keys whose values (strings, or arrays of
	// strings) are paths, for MarkdownLink.
	PathKeys []string
}

// defaultOptions are the options of a nil *Options: the default repairs,
// strict nulls and no path keys.
var defaultOptions = Options{Repairs: DefaultRepairs()}
