// Package shell classifies shell commands for the guards: it finds
// the destructive ones, recognises operations a policy may forbid (pushing,
// deleting, network access, package installs, privilege escalation), and
// lists the paths a command writes and the paths it names outside its
// working directory.
//
// It is a small tokenizer, not a shell. It understands words and quoting
// (single and double quotes, backslash escapes, $'...'), the separators ;,
// &, &&, |, ||, |&, newlines and parentheses, comments, redirections
// (including a file descriptor number in front and here-documents), and
// command substitution ($(...), backticks, <(...), >(...)), whose contents
// it classifies as commands of their own. Before classifying a command it
// drops variable assignments, reserved words (if, then, do, !, {, ...) and
// wrappers that run another command (sudo, doas, env, nohup, nice, timeout,
// xargs, exec, command, time, stdbuf, ionice, busybox); it descends into
// sh -c / bash -c scripts, eval, su -c, env -S and here-documents fed to a
// shell. It follows cd within one command line, so "cd / && rm -rf *" is
// seen for what it is. Commands run, by assumption, in the workspace root.
// A find that deletes is destructive only without a test that picks what it
// deletes (find / -delete, not find / -name '*.pyc' -delete), and one whose
// only tests are -name or -iname deletes just the files so named
// (Target.Names). It reads the arguments of common commands for what they
// are: a sed or awk script, a grep pattern, python -c code, find's tests
// and a commit message are not paths; a symbolic link's target is taken
// from the link's directory. It tells files created whole (>, tee, touch,
// mkdir) from files changed in place (Target.Create), and recognises
// commands that revert the work tree (git stash, git checkout of paths,
// git restore, git reset --hard), bring it back (git stash pop) or patch
// it (git apply, patch). Commands lists a line's simple commands, which
// package exitcode reads. The dialect is
// POSIX sh and bash: a Windows workspace root is ignored, and cmd.exe or
// PowerShell commands are not understood.
//
// What it cannot see, and does not pretend to: variables other than HOME
// and PWD are not expanded (rm -rf "$DIR" is not known to be dangerous),
// aliases and functions are not resolved, globs are not expanded beyond
// "*" meaning everything, loops are not unrolled, and programs that take
// code of their own (python -c, perl -e, node -e, awk, make, scripts on
// disk) are opaque. Scripts nested deeper than MaxDepth are refused rather
// than guessed at, and so are command lines larger than it follows: a cd
// into a path longer than MaxPathLen, more than MaxPaths paths written or
// named. Within those bounds its time and memory are linear in the
// command line's length, whatever the line holds. It is the cheap first
// line, not a sandbox — that is what kernel confinement is for.
package shell
