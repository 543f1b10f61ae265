package shell_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/shell"
)

const ws = "/home/dev/proj"

func TestDestructive(t *testing.T) {
	tests := []struct {
		cmd  string
		want shell.Rule // "" for a near miss that must not match
	}{
		// Recursive delete of /, /*, ~, $HOME or the workspace root.
		{"rm -rf /", shell.RuleRecursiveDelete},
		{"rm -rf /*", shell.RuleRecursiveDelete},
		{"rm -fr /", shell.RuleRecursiveDelete},
		{"rm -Rf /", shell.RuleRecursiveDelete},
		{"rm -r -f /", shell.RuleRecursiveDelete},
		{"rm --recursive --force /", shell.RuleRecursiveDelete},
		{"rm -rf --no-preserve-root /", shell.RuleRecursiveDelete},
		{"rm -rf -- /", shell.RuleRecursiveDelete},
		{"rm -rf //", shell.RuleRecursiveDelete},
		{"rm -rf /tmp/../", shell.RuleRecursiveDelete},
		{"rm -rf '/'", shell.RuleRecursiveDelete},
		{`rm -rf "/"`, shell.RuleRecursiveDelete},
		{"/bin/rm -rf /", shell.RuleRecursiveDelete},
		{`\rm -rf /`, shell.RuleRecursiveDelete},
		{"rm -rf ~", shell.RuleRecursiveDelete},
		{"rm -rf ~/", shell.RuleRecursiveDelete},
		{"rm -rf ~/*", shell.RuleRecursiveDelete},
		{"rm -rf $HOME", shell.RuleRecursiveDelete},
		{`rm -rf "$HOME"`, shell.RuleRecursiveDelete},
		{"rm -rf ${HOME}/", shell.RuleRecursiveDelete},
		{"rm -rf " + ws, shell.RuleRecursiveDelete},
		{"rm -rf " + ws + "/", shell.RuleRecursiveDelete},
		{"rm -rf " + ws + "/*", shell.RuleRecursiveDelete},
		{"rm -rf /home/dev", shell.RuleRecursiveDelete},
		{"rm -rf .", shell.RuleRecursiveDelete},
		{"rm -rf *", shell.RuleRecursiveDelete},
		{"rm -rf ./*", shell.RuleRecursiveDelete},
		{"rm -rf ..", shell.RuleRecursiveDelete},
		{"rm -rf $PWD", shell.RuleRecursiveDelete},
		{"rm -rf $(pwd)", shell.RuleRecursiveDelete},
		{"cd / && rm -rf *", shell.RuleRecursiveDelete},
		{"cd && rm -rf *", shell.RuleRecursiveDelete},
		{"find / -delete", shell.RuleRecursiveDelete},
		{"find / -exec rm -rf {} +", shell.RuleRecursiveDelete},
		{"find ~ -mindepth 1 -delete", shell.RuleRecursiveDelete},
		// Prefixes, chains and nesting.
		{"sudo rm -rf /", shell.RuleRecursiveDelete},
		{"sudo -u root rm -rf /", shell.RuleRecursiveDelete},
		{"FOO=1 BAR=2 rm -rf /", shell.RuleRecursiveDelete},
		{"env -i PATH=/bin rm -rf /", shell.RuleRecursiveDelete},
		{"nohup nice -n 5 timeout 10 rm -rf /", shell.RuleRecursiveDelete},
		{"make build && rm -rf /", shell.RuleRecursiveDelete},
		{"ls; rm -rf /", shell.RuleRecursiveDelete},
		{"false || rm -rf ~", shell.RuleRecursiveDelete},
		{"echo hi | sudo rm -rf /", shell.RuleRecursiveDelete},
		{"(cd src; rm -rf /)", shell.RuleRecursiveDelete},
		{"if true; then rm -rf /; fi", shell.RuleRecursiveDelete},
		{`bash -c "rm -rf /"`, shell.RuleRecursiveDelete},
		{`sh -lc 'rm -rf ~'`, shell.RuleRecursiveDelete},
		{`sudo bash -c "cd / && rm -rf *"`, shell.RuleRecursiveDelete},
		{`eval "rm -rf /"`, shell.RuleRecursiveDelete},
		{`echo $(rm -rf /)`, shell.RuleRecursiveDelete},
		{"echo \"`rm -rf /`\"", shell.RuleRecursiveDelete},
		{"bash <<EOF\nrm -rf /\nEOF\n", shell.RuleRecursiveDelete},
		{"rm -rf /\\\n", shell.RuleRecursiveDelete},
		// mkfs.
		{"mkfs /dev/sdb1", shell.RuleMkfs},
		{"mkfs.ext4 /dev/sda1", shell.RuleMkfs},
		{"sudo mkfs.xfs -f /dev/nvme0n1p1", shell.RuleMkfs},
		{`sh -c 'mkfs.ext4 /dev/sda1'`, shell.RuleMkfs},
		// dd onto a block device.
		{"dd if=/dev/zero of=/dev/sda bs=1M", shell.RuleDeviceWrite},
		{"dd if=img of=/dev/nvme0n1", shell.RuleDeviceWrite},
		{"sudo dd if=x.iso of=/dev/disk2", shell.RuleDeviceWrite},
		{"dd of=/dev/mmcblk0 if=a", shell.RuleDeviceWrite},
		{"dd if=a of=/dev/hda", shell.RuleDeviceWrite},
		// Redirection onto a raw device.
		{"echo hi > /dev/sda", shell.RuleDeviceRedirect},
		{"cat img >/dev/sdb", shell.RuleDeviceRedirect},
		{"cat img 1>>/dev/nvme0n1", shell.RuleDeviceRedirect},
		{": &> /dev/disk0", shell.RuleDeviceRedirect},
		// Fork bombs.
		{":(){ :|:& };:", shell.RuleForkBomb},
		{"bomb() { bomb | bomb & }; bomb", shell.RuleForkBomb},
		{"function f() { f|f& }; f", shell.RuleForkBomb},
		{"set -e\n:(){ :|:& };:", shell.RuleForkBomb},
		{"bomb() {\n  bomb | bomb &\n}\nbomb", shell.RuleForkBomb},
		// Force pushes.
		{"git push --force", shell.RuleForcePush},
		{"git push -f origin main", shell.RuleForcePush},
		{"git push origin main --force-with-lease", shell.RuleForcePush},
		{"git push --force-with-lease=main:abc origin", shell.RuleForcePush},
		{"git push origin +main", shell.RuleForcePush},
		{"git -C repo push -uf origin main", shell.RuleForcePush},
		// chmod -R on /.
		{"chmod -R 777 /", shell.RuleChmodRoot},
		{"sudo chmod -R a+rwx /", shell.RuleChmodRoot},
		{"chown -R nobody /*", shell.RuleChmodRoot},
		{"chmod --recursive 000 /", shell.RuleChmodRoot},
		// System directories and users' homes.
		{"rm -rf /usr", shell.RuleRecursiveDelete},
		{"rm -rf /etc/", shell.RuleRecursiveDelete},
		{"sudo rm -rf /usr/lib", shell.RuleRecursiveDelete},
		{"rm -rf /usr/local/*", shell.RuleRecursiveDelete},
		{"rm -rf /home/alice", shell.RuleRecursiveDelete},
		{"rm -rf /Users/alice", shell.RuleRecursiveDelete},
		{"rm -rf /var", shell.RuleRecursiveDelete},
		{"cd /usr && rm -rf *", shell.RuleRecursiveDelete},
		{"find /etc -delete", shell.RuleRecursiveDelete},
		// Trees deleted from a program's text.
		{`python -c "import shutil; shutil.rmtree('/')"`, shell.RuleRecursiveDelete},
		{`python3 -c 'import shutil; shutil.rmtree("/usr")'`, shell.RuleRecursiveDelete},
		{`python3 -c "from shutil import rmtree; rmtree('.')"`, shell.RuleRecursiveDelete},
		{`python3 -c "import shutil;shutil.rmtree(r'` + ws + `', ignore_errors=True)"`, shell.RuleRecursiveDelete},
		{"python3 - <<'EOF'\nimport shutil\nshutil.rmtree('/home/dev')\nEOF", shell.RuleRecursiveDelete},
		{"python3 <<EOF\nimport os\nos.system('rm -rf ~')\nEOF", shell.RuleRecursiveDelete},
		{`python -c "import subprocess; subprocess.run(['rm', '-rf', '/'])"`, shell.RuleRecursiveDelete},
		{`python -c "import subprocess; subprocess.run('git push -f', shell=True)"`, shell.RuleForcePush},
		{`node -e "require('fs').rmSync('/', {recursive: true, force: true})"`, shell.RuleRecursiveDelete},
		{`node -e "require('child_process').execSync('rm -rf ~')"`, shell.RuleRecursiveDelete},
		// A git clean of everything git does not track, ignored files too.
		{"git clean -fdx", shell.RuleGitClean},
		{"git clean -xdf", shell.RuleGitClean},
		{"git clean -f -d -x", shell.RuleGitClean},
		{"git clean --force -x .", shell.RuleGitClean},
		{"git clean -ffdx -e keep.txt", shell.RuleGitClean},
		{"git -C " + ws + " clean -fdx", shell.RuleGitClean},
		// A hard reset that drops commits.
		{"git reset --hard HEAD~5", shell.RuleGitReset},
		{"git reset --hard HEAD^", shell.RuleGitReset},
		{"git reset --hard origin/main", shell.RuleGitReset},
		{"git reset --keep abc1234", shell.RuleGitReset},
		// chmod -R that locks the owner out.
		{"chmod -R 000 .", shell.RuleChmodLockout},
		{"chmod -R 0 *", shell.RuleChmodLockout},
		{"chmod -R a-rwx " + ws, shell.RuleChmodLockout},
		{"chmod -R u-w ~", shell.RuleChmodLockout},
		{"chmod -R -x .", shell.RuleChmodLockout},
		{"chmod -R 644 .", shell.RuleChmodLockout},
		{"chmod -R =r /home/dev", shell.RuleChmodLockout},
		{"chmod -R 000 /usr", shell.RuleChmodLockout},
		// Too deep to follow.
		{nested(shell.MaxDepth + 1), shell.RuleNesting},

		// Near misses that must not match.
		{"rm -rf ./build", ""},
		{"rm -rf build/", ""},
		{"rm -r tmp/x", ""},
		{"rm -rf node_modules dist", ""},
		{"rm -rf " + ws + "/build", ""},
		{"rm -rf ../other-project", ""},
		{"rm /", ""},
		{"rm -f *.o", ""},
		{"cd build && rm -rf *", ""},
		{`cd "$DIR" && rm -rf *`, ""},
		{"git push", ""},
		{"git push origin main", ""},
		{"git push -u origin feature", ""},
		{"git push --follow-tags", ""},
		{"dd if=a of=b.img", ""},
		{"dd if=/dev/sda of=backup.img", ""},
		{`echo "rm -rf /"`, ""},
		{`echo 'rm -rf /'`, ""},
		{`printf '%s\n' "mkfs.ext4 /dev/sda"`, ""},
		{"grep mkfs notes.md", ""},
		{"grep -r 'rm -rf /' .", ""},
		{"git commit -m 'rm -rf / is bad'", ""},
		{"echo hi > /dev/null", ""},
		{"echo hi 2>/dev/stderr > out.txt", ""},
		{"cat /dev/sda > /dev/null", ""},
		{"chmod -R 755 ./bin", ""},
		{"chmod 644 /etc/hosts", ""},
		{`echo ':(){ :|:& };:'`, ""},
		{"find . -name '*.pyc' -delete", ""},
		{"find build -type f", ""},
		{"find / -name x -exec rm -rf {} +", ""},
		{"ls -la # rm -rf /", ""},
		{"cat <<EOF\nrm -rf /\nEOF\n", ""},
		{"go test ./... | tee test.log", ""},
		{"rm -rf /root/.cache/pip", ""},
		{"rm -rf /usr/local/lib/python3.9/site-packages/foo", ""},
		{"rm -rf /tmp/build", ""},
		{"rm -rf /var/tmp/x", ""},
		{"find /usr -name '*.pyc' -delete", ""},
		{`python -c "import shutil; shutil.rmtree(settings.STATIC_ROOT)"`, ""},
		{`python -c "import shutil; shutil.rmtree('build')"`, ""},
		{`python -c "print('rm -rf /')"`, ""},
		{`python script.py "shutil.rmtree('/')"`, ""},
		{`node -e "fs.rmSync('/tmp/x.txt')"`, ""},
		{"git clean -fd", ""},
		{"git clean -fdX", ""},
		{"git clean -n -fdx", ""},
		{"git clean -fdx build/", ""},
		{"git clean -dx", ""},
		{"git reset --hard", ""},
		{"git reset --hard HEAD", ""},
		{"git reset HEAD~1", ""},
		{"git reset --soft HEAD~1", ""},
		{"chmod -R 755 .", ""},
		{"chmod -R u+w .", ""},
		{"chmod -R go-w .", ""},
		{"chmod -R 000 build", ""},
		{"chmod 000 secret.txt", ""},
		{"chmod -R a+X .", ""},
	}
	for _, tt := range tests {
		got := shell.Analyze(tt.cmd, ws)
		if got.Danger.Rule != tt.want {
			t.Errorf("Analyze(%q): rule %q (%s: %s), want %q", tt.cmd, got.Danger.Rule, got.Danger.Command, got.Danger.What, tt.want)
		}
	}
}

// nested returns rm -rf / inside n levels of sh -c.
func nested(n int) string {
	s := "rm -rf /"
	for range n {
		s = "sh -c " + shell.Quote(s)
	}
	return s
}

func TestNestingWithinLimit(t *testing.T) {
	if got := shell.Analyze(nested(shell.MaxDepth), ws); got.Danger.Rule != shell.RuleRecursiveDelete {
		t.Errorf("rm -rf / in %d levels of sh -c: rule %q", shell.MaxDepth, got.Danger.Rule)
	}
	if got := shell.Analyze(nested(shell.MaxDepth+1), ws); got.Danger.Rule != shell.RuleNesting {
		t.Errorf("%d levels of sh -c: rule %q, want nesting", shell.MaxDepth+1, got.Danger.Rule)
	}
}

func TestWithoutWorkspace(t *testing.T) {
	for cmd, want := range map[string]shell.Rule{
		"rm -rf /":               shell.RuleRecursiveDelete,
		"rm -rf .":               shell.RuleRecursiveDelete,
		"rm -rf /home/dev/proj":  "",
		"rm -rf /home/dev/proj/": "",
	} {
		if got := shell.Analyze(cmd, ""); got.Danger.Rule != want {
			t.Errorf("Analyze(%q) without a workspace: rule %q, want %q", cmd, got.Danger.Rule, want)
		}
	}
}

func TestOps(t *testing.T) {
	tests := []struct {
		cmd  string
		want shell.Op
	}{
		{"git push origin main", shell.OpGitPush | shell.OpNetwork},
		{"git push --force", shell.OpGitPush | shell.OpForcePush | shell.OpNetwork},
		{"git status && git diff", 0},
		{"git fetch origin", shell.OpNetwork},
		{"rm a.txt", shell.OpDelete},
		{"rmdir empty", shell.OpDelete},
		{"git rm old.go", shell.OpDelete},
		{"git rm --cached old.go", 0},
		{"git clean -fdx", shell.OpDelete},
		{"find . -name '*.tmp' -delete", shell.OpDelete},
		{"find . -name '*.tmp' -exec rm {} \\;", shell.OpDelete},
		{"curl -fsSL https://example.com", shell.OpNetwork},
		{"wget https://example.com/x.tgz", shell.OpNetwork},
		{"ssh host uptime", shell.OpNetwork},
		{"rsync -a src/ host:/srv/", shell.OpNetwork},
		{"rsync -a src/ dst/", 0},
		{"pip install requests", shell.OpPackageInstall | shell.OpNetwork},
		{"python3 -m pip install -U requests", shell.OpPackageInstall | shell.OpNetwork},
		{"npm install", shell.OpPackageInstall | shell.OpNetwork},
		{"npm i -D vitest", shell.OpPackageInstall | shell.OpNetwork},
		{"npm test", 0},
		{"yarn add lodash", shell.OpPackageInstall | shell.OpNetwork},
		{"pnpm add zod", shell.OpPackageInstall | shell.OpNetwork},
		{"go get github.com/x/y@v1", shell.OpPackageInstall | shell.OpNetwork},
		{"go install golang.org/x/tools/cmd/stringer@latest", shell.OpPackageInstall | shell.OpNetwork},
		{"go install ./cmd/app", 0},
		{"go build ./...", 0},
		{"sudo apt-get install -y jq", shell.OpSudo | shell.OpPackageInstall | shell.OpNetwork},
		{"apk add curl", shell.OpPackageInstall | shell.OpNetwork},
		{"cargo add serde", shell.OpPackageInstall | shell.OpNetwork},
		{"brew install jq", shell.OpPackageInstall | shell.OpNetwork},
		{"uv pip install x", shell.OpPackageInstall | shell.OpNetwork},
		{"doas ls", shell.OpSudo},
		{"su -c 'ls /root'", shell.OpSudo},
		{"echo 'sudo rm x; curl y'", 0},
	}
	for _, tt := range tests {
		if got := shell.Analyze(tt.cmd, ws).Ops; got != tt.want {
			t.Errorf("Analyze(%q).Ops = %b, want %b", tt.cmd, got, tt.want)
		}
	}
}

func TestWrites(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string // paths, with "!" in front of deletes, "/r" after recursive ones and "+" after appends
	}{
		{"echo x > .git/HEAD", []string{".git/HEAD"}},
		{"echo x >> notes.md 2>&1", []string{"notes.md+"}},
		{"sed -i '/def test_paginator(self):/i \\    def test_iter(self):' tests/test_p.py", []string{"tests/test_p.py+"}},
		{"sed -i '68r tests/patch.py' tests/tests.py", []string{"tests/tests.py+"}},
		{"sed -i '1626a\\    assert Mod(3*i, 2) == Mod(i, 2)' t.py", []string{"t.py+"}},
		{`sed -i "/def f(self):/,/assertEqual/!b; /assertEqual/a\    x = 1" t.py`, []string{"t.py+"}},
		{"sed -i '1d' t.py", []string{"t.py"}},
		{"sed -i -e '2i x' -e 's/a/b/' t.py", []string{"t.py"}},
		{"sed -i -f fix.sed t.py", []string{"t.py"}},
		{"rm -rf .git/objects", []string{"!.git/objects/r"}},
		{"rm a_test.go b.go", []string{"!a_test.go", "!b.go"}},
		{"sed -i 's/a/b/' main.go util.go", []string{"main.go", "util.go"}},
		{"sed -i.bak -e 's/a/b/' main.go", []string{"main.go"}},
		{"sed 's/a/b/' main.go", nil},
		{"perl -pi -e 's/a/b/' x.pl", []string{"x.pl"}},
		{"cp a b c dir/", []string{"dir"}},
		{"cp -t dir a b", []string{"dir"}},
		{"cp -r ../x .", []string{"."}},
		{"mv a.go b.go", []string{"!a.go/r", "b.go"}},
		{"mv .git /tmp/", []string{"!.git/r", "/tmp"}},
		{"tee -a log.txt out.txt", []string{"log.txt+", "out.txt+"}},
		{"touch x && mkdir -p y/z", []string{"x", "y/z"}},
		{"cd sub && echo x > f", []string{"sub/f"}},
		{"dd if=a of=b.img", []string{"b.img"}},
		{"curl -o out.json https://x", []string{"out.json"}},
		{"chmod +x .git/hooks/pre-commit", []string{".git/hooks/pre-commit"}},
		{"cat a | grep b", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range shell.Analyze(tt.cmd, ws).Writes {
			s := w.Path
			if w.Delete {
				s = "!" + s
			}
			if w.Recursive {
				s += "/r"
			}
			if w.Append {
				s += "+"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Analyze(%q).Writes = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"cat /etc/passwd", []string{"/etc/passwd"}},
		{"cat ~/.ssh/id_rsa", []string{"~/.ssh/id_rsa"}},
		{"ls ../..", []string{"../.."}},
		{"cp src/a.go " + ws + "/b.go", []string{ws + "/b.go"}},
		{"dd if=/dev/zero of=out.bin", []string{"/dev/zero"}},
		{"go test --coverprofile=/tmp/c.out ./...", []string{"/tmp/c.out"}},
		{"cd /etc && cat passwd", []string{"/etc", "/etc/passwd"}},
		{"/usr/bin/env python3 script.py", nil},
		{"echo /etc/passwd", nil},
		{"grep -rn foo src", nil},
		{"awk '/x/ {print}' f", nil},
		{"ls ../sibling/x", []string{"../sibling/x"}},
		{"cat a > /tmp/out", []string{"/tmp/out"}},
	}
	for _, tt := range tests {
		if got := shell.Analyze(tt.cmd, ws).Paths; !slices.Equal(got, tt.want) {
			t.Errorf("Analyze(%q).Paths = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestAnalyzeArgv(t *testing.T) {
	if got := shell.AnalyzeArgv([]string{"rm", "-rf", "/"}, ws); got.Danger.Rule != shell.RuleRecursiveDelete {
		t.Errorf("argv rm -rf /: rule %q", got.Danger.Rule)
	}
	if got := shell.AnalyzeArgv([]string{"bash", "-c", "rm -rf ~"}, ws); got.Danger.Rule != shell.RuleRecursiveDelete {
		t.Errorf("argv bash -c: rule %q", got.Danger.Rule)
	}
	if got := shell.AnalyzeArgv([]string{"echo", "rm -rf /; mkfs /dev/sda"}, ws); got.Dangerous() {
		t.Errorf("argv echo with a dangerous-looking argument: rule %q", got.Danger.Rule)
	}
}

// FuzzAnalyze checks that no input makes the classifier panic, loop or
// take long, and that what it returns stays within its bounds: a refused
// line is refused for a reason, Writes and Paths hold at most MaxPaths,
// and classifying the same line twice gives the same answer.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"rm -rf /", `bash -c "x $(y "z")"`, "a <<-E\n\tb\n\tE\n", "'", `"`, "$(", "`", "${", "2>", "&>", ":(){", "\\"} {
		f.Add(s)
	}
	for _, u := range hostileUnits {
		f.Add(strings.Repeat(u, 64))
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		a := shell.Analyze(s, ws)
		shell.Commands(s)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("classifying %d bytes took %v", len(s), d)
		}
		if a.Dangerous() != (a.Danger.What != "") {
			t.Fatalf("%q: danger %+v", s, a.Danger)
		}
		if len(a.Writes) > shell.MaxPaths || len(a.Paths) > shell.MaxPaths {
			t.Fatalf("%q: %d writes, %d paths", s, len(a.Writes), len(a.Paths))
		}
		if again := shell.Analyze(s, ws); !reflect.DeepEqual(a, again) {
			t.Fatalf("%q classified twice: %+v, then %+v", s, a, again)
		}
	})
}

// TestSedEdits: the substitutions and the text an in-place sed writes,
// quoted from real runs (sympy-19637 undoes its fix with the same
// substitution the other way round; django-16899 changes three lines).
func TestSedEdits(t *testing.T) {
	tests := []struct {
		cmd  string
		want []shell.Edit
	}{
		{`sed -i '516s/^        hit/            hit/' sympy/core/sympify.py`,
			[]shell.Edit{{Path: "sympy/core/sympify.py", Addr: "516", Cmd: 's', Old: "^        hit", New: "            hit"}}},
		{`sed -i "774,776c\                        \"The value of '%s' refers to '%s'\"" django/contrib/admin/checks.py`,
			[]shell.Edit{{Path: "django/contrib/admin/checks.py", Addr: "774,776", Cmd: 'c', New: `                        "The value of '%s' refers to '%s'"`}}},
		{`sed -i 's/"lexer": "python3" if sys.version_info\[0\] >= 3 else "python",/"lexer": "text",/' src/_pytest/pastebin.py`,
			[]shell.Edit{{Path: "src/_pytest/pastebin.py", Cmd: 's', Old: `"lexer": "python3" if sys.version_info\[0\] >= 3 else "python",`, New: `"lexer": "text",`}}},
		{`sed -i -e 's|a/b|c|g' -e '/^#/d' -e '3a\extra line' x.py y.py`, []shell.Edit{
			{Path: "x.py", Cmd: 's', Old: "a/b", New: "c"}, {Path: "y.py", Cmd: 's', Old: "a/b", New: "c"},
			{Path: "x.py", Addr: "3", Cmd: 'a', New: "extra line"}, {Path: "y.py", Addr: "3", Cmd: 'a', New: "extra line"}}},
		{`cd src && sed -i '/DEBUG:/d; s/x = 1/x = 2/' m.py`, []shell.Edit{{Path: "src/m.py", Cmd: 's', Old: "x = 1", New: "x = 2"}}},
		{`sed -n '1,20p' m.py`, nil},
		{`sed 's/a/b/' m.py > n.py`, nil},
	}
	for _, tt := range tests {
		if got := shell.Analyze(tt.cmd, ws).Edits; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Analyze(%q).Edits = %+v, want %+v", tt.cmd, got, tt.want)
		}
	}
}
