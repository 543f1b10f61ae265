package shell

// Op is a set of operations a command performs that a policy may forbid.
type Op uint16

// Operations.
const (
	// OpGitPush: git push, forced or not.
	OpGitPush Op = 1 << iota
	// OpForcePush: git push --force, -f, --force-with-lease or a +refspec.
	OpForcePush
	// OpDelete: rm, rmdir, unlink, shred, git rm (not --cached), git
	// clean, find -delete or find -exec rm.
	OpDelete
	// OpNetwork: curl, wget, nc, ssh, scp, sftp, ftp, telnet, rsync to a
	// remote, git clone/fetch/pull/push/ls-remote, and package installs.
	OpNetwork
	// OpPackageInstall: pip install, npm install/add/ci, yarn/pnpm/bun add,
	// go get, go install pkg@version, apt/apt-get/yum/dnf/brew install, apk
	// add, pacman -S, cargo install/add, gem install, poetry/uv add,
	// conda install, composer require, bundle install, ...
	OpPackageInstall
	// OpSudo: sudo, doas, su, pkexec.
	OpSudo
)

// Has reports whether o includes every operation of x.
func (o Op) Has(x Op) bool { return o&x == x }

// Rule names a kind of destructive command.
type Rule string

// Destructive commands.
const (
	// RuleRecursiveDelete: a recursive delete (rm -r, find -delete) of /,
	// /*, ~, $HOME, the workspace root or one of its ancestors, or, since
	// commands run in the workspace root, of ".", "*" or "..".
	RuleRecursiveDelete Rule = "recursive_delete"
	// RuleMkfs: mkfs, mkfs.<type>, mke2fs, mkswap or wipefs.
	RuleMkfs Rule = "mkfs"
	// RuleDeviceWrite: dd of=<block device>, or shred of one.
	RuleDeviceWrite Rule = "device_write"
	// RuleDeviceRedirect: a redirection (>, >>, ...) to a block device.
	RuleDeviceRedirect Rule = "device_redirect"
	// RuleForkBomb: a function that pipes itself into itself, as in
	// :(){ :|:& };:
	RuleForkBomb Rule = "fork_bomb"
	// RuleForcePush: git push --force, -f, --force-with-lease or +refspec.
	RuleForcePush Rule = "force_push"
	// RuleChmodRoot: chmod, chown or chgrp -R on /.
	RuleChmodRoot Rule = "chmod_root"
	// RuleNesting: scripts nested deeper than MaxDepth; refused rather
	// than guessed at.
	RuleNesting Rule = "nesting"
)

// Danger is a destructive command.
type Danger struct {
	Rule    Rule
	Command string // the command, its words joined by spaces
	What    string // what it would destroy, as a phrase
}

// Target is a path a command writes, as written, resolved against any cd
// earlier in the command line (relative paths are relative to the
// directory the command starts in).
type Target struct {
	Path      string
	Delete    bool // the command removes it (rm, or the source of mv)
	Recursive bool // with everything under it
}

// Analysis is what a command line does, as far as the classifier can tell.
type Analysis struct {
	// Danger is the first destructive command found; Rule is empty when
	// there is none.
	Danger Danger
	// Ops are the operations found.
	Ops Op
	// Writes are the paths written, in order.
	Writes []Target
	// Paths are the paths named that leave the starting directory:
	// absolute paths, paths in the home directory ("~", $HOME) and relative
	// paths that climb above it, in order and without duplicates. The
	// command name itself and the arguments of echo and printf are not
	// counted.
	Paths []string
}

// Dangerous reports whether a destructive command was found.
func (a *Analysis) Dangerous() bool { return a.Danger.Rule != "" }

// MaxDepth bounds the nesting of scripts (sh -c, eval, $(...), here-
// documents) the classifier follows. Deeper nesting is reported as
// RuleNesting.
const MaxDepth = 8

// MaxPaths bounds Analysis.Paths.
const MaxPaths = 16
