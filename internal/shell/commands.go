package shell

// Commands returns the simple commands of the command line cmd, in order,
// each as its words with variable assignments and wrappers (sudo, env,
// timeout, nohup, xargs, ...) dropped. Commands inside substitutions and
// here-documents are left out: they are not what the line's exit status
// reports. A line of a, b and c joined by ;, &&, || or | gives the three.
func Commands(cmd string) [][]string {
	var a analyzer
	l := lex(cmd)
	out := make([][]string, 0, len(l.cmds))
	for i := range l.cmds {
		words := l.cmds[i].words
		for len(words) > 0 && !words[0].quoted && reserved[words[0].text] {
			words = words[1:]
		}
		if len(words) == 0 || !words[0].quoted && opaque[words[0].text] {
			continue
		}
		argv := make([]string, len(words))
		for j, w := range words {
			argv[j] = w.text
		}
		if argv = a.unwrap(argv, MaxDepth+1); len(argv) > 0 {
			out = append(out, argv)
		}
	}
	return out
}
