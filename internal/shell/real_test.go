package shell_test

import (
	"slices"
	"testing"

	"github.com/guardstream/guardstream/internal/shell"
)

// The commands below are quoted from real runs of a coding agent on
// SWE-bench (../shared/trajectories), where an earlier classifier read
// them wrong. The workspace is the runs' own, /testbed.
const testbed = "/testbed"

// TestRealPaths: what a command names outside the workspace. Scripts,
// patterns and code are not paths; cd's operand is taken from where the
// command was; a symbolic link's target from the link's directory.
func TestRealPaths(t *testing.T) {
	tests := []struct {
		run, cmd string
		want     []string
	}{
		{"astropy-13398", `sed -i '/DEBUG:/d' astropy/coordinates/builtin_frames/itrs_observed_transforms.py`, nil},
		{"pytest-6197", `sed -i '/DEBUG:/d' src/_pytest/main.py`, nil},
		{"django-11265", `sed -n '/^def x/,/^def y/p' django/db/models/sql/query.py`, nil},
		{"sphinx-7757", "mkdir reproduce_issue\ncd reproduce_issue\n\ncat <<EOF > conf.py\nproject = 'Reproduction'\nEOF\n\ncd ..", nil},
		{"pytest-7982", "ln -s ../real_dir reproduce_issue/test_root/symlink_dir", nil},
		{"pytest-7982", "mkdir -p reproduce_issue/symlink_ignore_test\nln -s ../testing/example_scripts reproduce_issue/symlink_ignore_test/symlink_to_ignored", nil},
		{"grep pattern", `grep -rn "/usr/lib" src/`, nil},
		{"python -c", `python3 -c "open('/etc/hosts').read()"`, nil},
		{"find -path", `find . -path '*/tests/*' -name '*.py'`, nil},
		{"git commit -m", `git commit -m "fix /api/v1 routing"`, nil},
		// Still named: real places outside the workspace.
		{"pylint-4661", "ls -d /root/.pylint.d", []string{"/root/.pylint.d"}},
		{"sed reading /etc", `sed -n '1,5p' /etc/passwd`, []string{"/etc/passwd"}},
		{"cd out", "cd .. && ls", []string{".."}},
		{"ln to /etc", "ln -s /etc/passwd link", []string{"/etc/passwd"}},
		{"ln climbing", "ln -s ../../x sub/link", []string{"../x"}},
	}
	for _, tt := range tests {
		if got := shell.Analyze(tt.cmd, testbed).Paths; !slices.Equal(got, tt.want) {
			t.Errorf("%s: Analyze(%q).Paths = %q, want %q", tt.run, tt.cmd, got, tt.want)
		}
	}
}

// TestRealWrites: how a command writes. Create tells a new file from an
// edit in place; Names keep what a find deletes by name.
func TestRealWrites(t *testing.T) {
	type w = shell.Target
	tests := []struct {
		run, cmd string
		want     []shell.Target
	}{
		{"django-16100", `find . -name "*.pyc" -delete`, []w{{Path: ".", Delete: true, Recursive: true, Names: []string{"*.pyc"}}}},
		{"pycache", `find . -type d -name __pycache__ -exec rm -rf {} +`, []w{{Path: ".", Delete: true, Recursive: true, Names: []string{"__pycache__"}}}},
		{"find not named", `find . ! -name '*.py' -delete`, []w{{Path: ".", Delete: true, Recursive: true}}},
		{"find by type", `find . -type f -delete`, []w{{Path: ".", Delete: true, Recursive: true}}},
		{"find any name", `find . -name '*' -delete`, []w{{Path: ".", Delete: true, Recursive: true}}},
		{"astropy-13236", "cat <<'EOF' > test_serialization.py\nimport numpy as np\nEOF", []w{{Path: "test_serialization.py", Create: true}}},
		{"astropy-12907", "cat <<'EOF' >> astropy/modeling/tests/test_separable.py\n\ndef test_x():\n    pass\nEOF", []w{{Path: "astropy/modeling/tests/test_separable.py"}}},
		{"django-16560", `sed -i '195s/assertIn/assertNotIn/' tests/migrations/test_loader.py`, []w{{Path: "tests/migrations/test_loader.py"}}},
		{"matplotlib-24970", "cp lib/matplotlib/colors.py lib/matplotlib/colors.py.bak", []w{{Path: "lib/matplotlib/colors.py.bak"}}},
		{"tee", "echo x | tee a.txt | tee -a b.txt", []w{{Path: "a.txt", Create: true}, {Path: "b.txt"}}},
		{"sphinx-7738", "mkdir -p tests/roots/test-typehints-description", []w{{Path: "tests/roots/test-typehints-description", Create: true}}},
	}
	for _, tt := range tests {
		got := shell.Analyze(tt.cmd, testbed).Writes
		if !slices.EqualFunc(got, tt.want, func(a, b shell.Target) bool {
			return a.Path == b.Path && a.Delete == b.Delete && a.Recursive == b.Recursive && a.Create == b.Create && slices.Equal(a.Names, b.Names)
		}) {
			t.Errorf("%s: Analyze(%q).Writes = %+v, want %+v", tt.run, tt.cmd, got, tt.want)
		}
	}
}

// TestRealTreeOps: commands that put the work back (a baseline), bring it
// back, or change it without naming files.
func TestRealTreeOps(t *testing.T) {
	tests := []struct {
		run, cmd string
		want     shell.Op
	}{
		{"astropy-13236", "git checkout astropy/table/table.py", shell.OpRevert},
		{"matplotlib-24970", "cp lib/matplotlib/colors.py lib/matplotlib/colors.py.bak\ngit checkout lib/matplotlib/colors.py\npytest lib/matplotlib/tests/test_colors.py", shell.OpRevert},
		{"stash", "git stash && pytest tests/ ; git stash pop", shell.OpRevert | shell.OpUnstash},
		{"stash -u", "git stash -u", shell.OpRevert},
		{"restore", "git restore src/a.py", shell.OpRevert},
		{"restore --staged", "git restore --staged src/a.py", 0},
		{"reset", "git reset --hard HEAD", shell.OpRevert},
		{"new branch", "git checkout -b fix", 0},
		{"apply", "git apply fix.patch", shell.OpPatch},
		{"apply -R", "git apply -R fix.patch", shell.OpRevert},
		{"patch", "patch -p1 < fix.diff", shell.OpPatch},
		{"stash list", "git stash list", 0},
		{"diff", "git diff", 0},
	}
	mask := shell.OpRevert | shell.OpUnstash | shell.OpPatch
	for _, tt := range tests {
		if got := shell.Analyze(tt.cmd, testbed).Ops & mask; got != tt.want {
			t.Errorf("%s: Analyze(%q).Ops = %b, want %b", tt.run, tt.cmd, got, tt.want)
		}
	}
}
