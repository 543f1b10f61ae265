package event_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
)

const wireDoc = "../docs/wire.md"

// sourceConsts returns the values of the string constants of type typ
// declared in the package's source, sorted: the closed sets (reasons,
// steer constraints, outcomes) as the Go source defines them, so the
// schemas and the document cannot miss a new one.
func sourceConsts(t *testing.T, typ string) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: a %s constant that is not a string literal", fset.Position(v.Pos()), typ)
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, s)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no constants of type %s in the package source", typ)
	}
	slices.Sort(out)
	return out
}

// TestWireDocCoversTheContract checks that docs/wire.md documents every
// event and decision kind with the token and verdict the Go source gives
// it, and every reason, steer constraint and key (at every depth) in a
// table row.
func TestWireDocCoversTheContract(t *testing.T) {
	b, err := os.ReadFile(wireDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	row := func(cells ...string) *regexp.Regexp {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = regexp.QuoteMeta(c)
		}
		return regexp.MustCompile(`(?m)^\| ` + strings.Join(parts, ` \| `) + ` \|`)
	}
	for k := event.Kind(1); k.Valid(); k++ {
		want := row(fmt.Sprint(uint8(k)), "`"+k.String()+"`", "`"+k.Token()+"`", "`"+k.String()+".json`")
		if !want.MatchString(doc) {
			t.Errorf("%s: no event kind row %s", wireDoc, want)
		}
	}
	for k := event.DecisionKind(1); k.Valid(); k++ {
		verdict := "no"
		if k.IsVerdict() {
			verdict = "yes"
		}
		want := regexp.MustCompile(`(?m)^\| ` + fmt.Sprint(uint8(k)) + " \\| `" + k.String() + "` \\| " + verdict + "[^|]* \\| `" + k.Token() + "` \\|")
		if !want.MatchString(doc) {
			t.Errorf("%s: no decision kind row %s", wireDoc, want)
		}
	}
	for _, typ := range []string{"Reason", "SteerKind", "Status"} {
		for _, s := range sourceConsts(t, typ) {
			if !row("`" + s + "`").MatchString(doc) {
				t.Errorf("%s: no table row for the %s %q", wireDoc, typ, s)
			}
		}
	}
	for _, v := range []any{event.Event{}, event.Decision{}} {
		for _, p := range wirePaths(reflect.TypeOf(v), "") {
			key := p[strings.LastIndexAny(p, ".")+1:]
			if !row("`" + key + "`").MatchString(doc) {
				t.Errorf("%s: no table row for the %T key %q", wireDoc, v, p)
			}
		}
	}
}
