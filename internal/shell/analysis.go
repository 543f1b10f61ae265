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
	// OpRevert: the command puts files of the work tree back to a
	// committed state: git stash (push, save), git checkout or git restore
	// of paths or branches, git reset --hard (or --merge, --keep), git
	// apply -R, patch -R.
	OpRevert
	// OpUnstash: git stash pop or git stash apply.
	OpUnstash
	// OpPatch: the command changes files that Writes cannot list: patch,
	// git apply, am, cherry-pick, merge, rebase, revert, switch, pull.
	OpPatch
)

// Has reports whether o includes every operation of x.
func (o Op) Has(x Op) bool { return o&x == x }

// Rule names a kind of destructive command.
type Rule string

// Destructive commands.
const (
	// RuleRecursiveDelete: a recursive delete (rm -r, find -delete,
	// Python's shutil.rmtree, Node's fs.rmSync with recursive) of /, /*,
	// a system directory (/usr, /etc, /usr/lib, a user's home under /home,
	// ...), ~, $HOME, the workspace root or one of its ancestors, or,
	// since commands run in the workspace root, of ".", "*" or "..".
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
	// RuleChmodLockout: chmod -R with a mode that takes the owner's read,
	// write or search permission away (000, a-rwx, u-w, 0644 on
	// directories) from the workspace root, the home directory, a
	// directory that holds them, or a system directory.
	RuleChmodLockout Rule = "chmod_lockout"
	// RuleGitClean: git clean -f with -x over the whole work tree: every
	// file git does not track, ignored ones too (environments, local
	// settings, secrets, and work not yet committed), beyond recovery. A
	// clean of ignored files only (-X) or of a subdirectory is not one.
	RuleGitClean Rule = "git_clean"
	// RuleGitReset: git reset --hard (or --merge, --keep) to a commit
	// other than HEAD: the branch loses its last commits along with every
	// uncommitted change. A reset to HEAD, which discards the run's own
	// uncommitted experiments, is not one.
	RuleGitReset Rule = "git_reset"
	// RuleNesting: scripts nested deeper than MaxDepth; refused rather
	// than guessed at.
	RuleNesting Rule = "nesting"
	// RuleTooLarge: a command line larger than the classifier follows: a
	// cd into a directory whose path is longer than MaxPathLen, or more
	// than MaxPaths paths written or named. Refused rather than followed
	// part of the way, which would let the rest through unseen.
	RuleTooLarge Rule = "too_large"
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
	// Create is set when the command writes the file whole, in the ways
	// the shell creates new files (>, tee, touch, mkdir, a download),
	// rather than changing it in place (>>, sed -i, chmod) or copying or
	// moving another file onto it.
	Create bool
	// Append is set when the command only adds lines to the file, at its
	// end or between its lines, and changes none of those it has: a >>
	// redirection, tee -a, an in-place sed whose script only inserts (a,
	// i, r).
	Append bool
	// Names, for a find that deletes only files whose name its -name or
	// -iname tests pick, are those patterns: Path is where the search
	// starts, and only files so named under it are deleted.
	Names []string
}

// Analysis is what a command line does, as far as the classifier can tell.
type Analysis struct {
	// Danger is the first destructive command found; Rule is empty when
	// there is none.
	Danger Danger
	// Ops are the operations found.
	Ops Op
	// Writes are the paths written, in order; at most MaxPaths.
	Writes []Target
	// Edits are what in-place sed commands do to the files they write,
	// in order; at most MaxEdits.
	Edits []Edit
	// Paths are the paths named that leave the starting directory:
	// absolute paths, paths in the home directory ("~", $HOME) and relative
	// paths that climb above it, in order and without duplicates. The
	// command name itself, the arguments of echo and printf, and arguments
	// that are code or patterns (see notPaths) are not counted. At most
	// MaxPaths.
	Paths []string
}

// Dangerous reports whether a destructive command was found.
func (a *Analysis) Dangerous() bool { return a.Danger.Rule != "" }

// MaxDepth bounds the nesting of scripts (sh -c, eval, $(...), here-
// documents) the classifier follows. Deeper nesting is reported as
// RuleNesting.
const MaxDepth = 8

// MaxPaths bounds Analysis.Writes and Analysis.Paths. A command line that
// writes or names more is refused as RuleTooLarge.
const MaxPaths = 1024

// MaxPathLen is the longest working directory, in bytes, the classifier
// follows a cd into: PATH_MAX, the longest path the kernel takes. A cd
// further is refused as RuleTooLarge. Together with MaxPaths it bounds
// what Analyze builds, and its time, to a linear function of the command
// line's length.
const MaxPathLen = 4096
