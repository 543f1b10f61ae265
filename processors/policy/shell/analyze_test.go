package shell_test

import (
	"slices"
	"testing"

	"github.com/guardstream/guardstream/processors/policy/shell"
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
		want []string // paths, with "!" in front of deletes and "/r" after recursive ones
	}{
		{"echo x > .git/HEAD", []string{".git/HEAD"}},
		{"echo x >> notes.md 2>&1", []string{"notes.md"}},
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
		{"tee -a log.txt out.txt", []string{"log.txt", "out.txt"}},
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

// FuzzAnalyze checks that no input makes the classifier panic or loop.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"rm -rf /", `bash -c "x $(y "z")"`, "a <<-E\n\tb\n\tE\n", "'", `"`, "$(", "`", "${", "2>", "&>", ":(){", "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { shell.Analyze(s, ws) })
}
