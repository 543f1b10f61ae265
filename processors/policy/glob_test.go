package policy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// Patterns and paths of the differential tests: the shapes policies use,
// and the corners of doublestar's reading of a pattern.
var (
	tablePatterns = []string{
		"", "*", "**", "/**", "**/", "/**/", "***", "a/**", "a/**/", "**/a", "a/**/b", "**/a/**", "a/*", "a/*/",
		"a//b", "/", "//", "/*", "/a/**", "a", "a/b", "a/", "*.go", "**/*_test.go", "**/*.{test,spec}.{js,ts}",
		"**/test_*.py", "**/conftest.py", "**/testdata/**", ".git/objects/**", ".git/HEAD", "/dev/null", "/tmp/**",
		"src/pkg*/gen1_*.go", "docs/v1/{api,guide}/*.md", "a*{*,b}", "**{/,b}", "a/**{,x}", "a/{,**}", "a*{,}",
		"{a,b}/**", "{,a}/b", "{a/,}**", "{}", "{,}", "{a,{b,c}}d", "{a,[}]b}", "{**/,}a", "*{,/}",
		"x[!a]y", "a[.-0]b", "[/]", "a\\/b", "\\*", "*\\*", "a[0-9]b", "[.-0]", "[a-c]/*", "*[ab]", "[!a]*", "a?c", "?/?",
		"\xff", "\uFFFD", "a/\xff", "é/*", "*é", "[é]", "a**/b", "**a", "a/**b", "**.go", "\\{a,b}", "[{]a,b}",
		"*/*", "*/**", "**/*", "a/*.go", "*.[ch]", "[a-z]*.txt", "a\\\\/b", "\\[a]",
	}
	tablePaths = []string{
		"", "/", "//", "a", "a/", "/a", "a/b", "a//b", "a/b/", "a/b/c", "x/a/b", "b", "ab", "a.go", "x/a_test.go",
		"src/pkg1/gen1_x.go", "src/pkg1/file.go", "x/y.test.js", "x/y.spec.ts", ".git/HEAD", ".git/objects/ab/cd",
		"/dev/null", "/tmp", "/tmp/x", "docs/v1/api/x.md", "x/testdata/y", "testdata", "t/test_x.py", "conftest.py",
		"x/y", "x/ay", "xay", "x\xffy", "\xff", "\xfe", "\uFFFD", "a/\xfe", "é/x", "xé", "a1b", "a/c", "abc", "*", "{a,b}",
		"[a]", "a/x", "a/xb", "a/b.go", "a/b/c.go", "a.c", "{a", "a}", "d/a", "d/a/x", "d/b", ".", "./a", "a/..",
	}
)

// refCovers is covers as a loop over the globs.
func refCovers(g *globSet, dir string) (string, bool) {
	for i, pre := range g.prefixes {
		if dir == "." || pre != "" && (pre == dir || strings.HasPrefix(pre, dir) && pre[len(dir)] == '/') {
			return g.globs[i], true
		}
	}
	return "", false
}

// refCoversNamed is coversNamed as a loop over the globs.
func refCoversNamed(g *globSet, dir string, names []string) (string, bool) {
	for i, pre := range g.prefixes {
		if pre == "" {
			continue
		}
		if dir == pre || strings.HasPrefix(dir, pre+"/") {
			return g.globs[i], true
		}
		if dir != "." && !(strings.HasPrefix(pre, dir) && pre[len(dir)] == '/') {
			continue
		}
		last := g.globs[i][strings.LastIndexByte(g.globs[i], '/')+1:]
		if strings.ContainsAny(last, `*?[{\`) {
			continue
		}
		for _, n := range names {
			if ok, _ := doublestar.Match(n, last); ok {
				return g.globs[i], true
			}
		}
	}
	return "", false
}

// checkGlobs compares the set of globs with doublestar on each path: the
// first glob doublestar matches is the one the set reports. It also
// compares covers and coversNamed with their loops. It reports whether
// the globs were accepted.
func checkGlobs(t *testing.T, globs, paths []string) bool {
	t.Helper()
	g, err := compileGlobs(globs)
	if err != nil {
		for _, glob := range globs {
			if !doublestar.ValidatePattern(glob) {
				return false
			}
		}
		if !strings.Contains(err.Error(), "expands to more than") {
			t.Fatalf("%q: %v, but doublestar takes every glob", globs, err)
		}
		return false
	}
	for _, p := range paths {
		want, wantOK := "", false
		for _, glob := range globs {
			if ok, _ := doublestar.Match(glob, p); ok {
				want, wantOK = glob, true
				break
			}
		}
		if got, ok := g.match(p); got != want || ok != wantOK {
			t.Fatalf("globs %q, path %q: match gives %q %v; doublestar %q %v", globs, p, got, ok, want, wantOK)
		}
		got, ok := g.covers(p)
		if want, wantOK := refCovers(&g, p); got != want || ok != wantOK {
			t.Fatalf("globs %q, dir %q: covers gives %q %v; want %q %v", globs, p, got, ok, want, wantOK)
		}
		names := []string{"HEAD", "*.pyc", "b", p}
		got, ok = g.coversNamed(p, names)
		if want, wantOK := refCoversNamed(&g, p, names); got != want || ok != wantOK {
			t.Fatalf("globs %q, dir %q: coversNamed gives %q %v; want %q %v", globs, p, got, ok, want, wantOK)
		}
	}
	return true
}

func TestGlobSetTable(t *testing.T) {
	paths := append(tablePaths, ".", "a/b/c/d")
	for _, glob := range tablePatterns {
		checkGlobs(t, []string{glob}, paths)
	}
	var valid []string
	for _, glob := range tablePatterns {
		if doublestar.ValidatePattern(glob) {
			valid = append(valid, glob)
		}
	}
	checkGlobs(t, valid, paths)
	for i := range valid { // every glob first, so each one's answers show
		checkGlobs(t, append(valid[i:len(valid):len(valid)], valid[:i]...), paths)
	}
}

// randomGlob joins up to n pieces of glob syntax.
func randomGlob(r *rand.Rand, n int) string {
	pieces := []string{
		"a", "b", "ab", ".go", "/", "/", "*", "**", "**/", "/**", "?", "[ab]", "[!a]", "[a-c]", "[.-0]", "[/]",
		"{", "}", ",", "{a,b}", "{,a}", "{*,/}", "{a/,**}", "\\*", "\\/", "\\", "é", "\xff", "\uFFFD", "-", "x",
	}
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomPath joins up to n pieces of a path.
func randomPath(r *rand.Rand, n int) string {
	pieces := []string{"a", "b", "ab", ".go", "/", "/", "/", "x", "é", "\xff", "\xfe", "\uFFFD", "*", "{", ",", "-", "0"}
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestGlobSetRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 6))
	accepted := 0
	for range 3000 {
		globs := make([]string, 1+r.IntN(6))
		for i := range globs {
			globs[i] = randomGlob(r, 6)
		}
		paths := make([]string, 40)
		for i := range paths {
			paths[i] = randomPath(r, 7)
		}
		if checkGlobs(t, globs, paths) {
			accepted++
		}
	}
	if accepted < 300 {
		t.Errorf("only %d of 3000 random glob lists were valid; the test proves little", accepted)
	}
}

// FuzzGlobSet compares a set of globs (one a line) with doublestar on a
// path, and covers and coversNamed with their loops. The seeds, under
// testdata/fuzz/FuzzGlobSet, are the policy's defaults and the corners
// above.
func FuzzGlobSet(f *testing.F) {
	f.Fuzz(func(t *testing.T, globs, path string) {
		list := strings.Split(globs, "\n")
		if len(list) > 16 || len(globs) > 1024 || len(path) > 256 {
			return
		}
		checkGlobs(t, list, []string{path})
	})
}

func TestGlobSetMatchDoesNotAllocate(t *testing.T) {
	g := mustGlobs(append(sizedGlobs(256), DefaultPolicy().TestGlobs...))
	paths := []string{"src/pkg1/file.go", "x/a_test.go", "web/app.test.tsx", "gen/pkg3/x.go", "a/vendor9/b", "/opt/tool7/bin"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			g.match(p)
		}
	})
	if allocs != 0 {
		t.Errorf("matching allocates %v times", allocs)
	}
}

// sizedGlobs returns n globs of the shapes policies use: a literal
// directory, an extension, a directory at any depth, a file name at any
// depth, alternatives, and the start of a file name.
func sizedGlobs(n int) []string {
	shapes := [...]string{
		"gen/pkg%d/**", "**/*.ext%d", "**/vendor%d/**", "build/out%d/*.o",
		"**/name%d.lock", "docs/v%d/{api,guide}/*.md", "src/pkg*/gen%d_*.go", "/opt/tool%d/**",
	}
	gs := make([]string, n)
	for i := range gs {
		gs[i] = fmt.Sprintf(shapes[i%len(shapes)], i)
	}
	return gs
}

// TestGlobSetIndexesShapes: the globs of the usual shapes are filed under
// keys, so a path is tried against few of them.
func TestGlobSetIndexesShapes(t *testing.T) {
	g := mustGlobs(append(sizedGlobs(1024), DefaultPolicy().TestGlobs...))
	if len(g.rest) != 0 {
		var rest []string
		for _, i := range g.rest {
			rest = append(rest, g.pats[i])
		}
		t.Errorf("patterns filed under no key: %q", rest)
	}
}
