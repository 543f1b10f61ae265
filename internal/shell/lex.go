package shell

import "strings"

// word is one word of a command, with quotes and escapes removed.
type word struct {
	text   string
	quoted bool // some part was quoted or escaped: not a reserved word or a file descriptor
}

// command is one simple command: its words, the files its redirections
// write, and the bodies of its here-documents.
type command struct {
	words    []word
	writes   []redirect // targets of >, >>, >|, &>, <> redirections
	heredocs []string
	hasDoc   bool // a here-document is announced; its body follows the line
}

// redirect is a file a redirection writes.
type redirect struct {
	path     string
	truncate bool // >, >|, &>: the file is created or emptied, not appended to or opened in place
}

type heredoc struct {
	delim string
	strip bool // <<-: leading tabs are stripped
	cmd   int  // index of the owning command in lexer.cmds
}

// lexer splits a script into simple commands.
type lexer struct {
	s       string
	i       int
	cmds    []command
	cur     command
	subs    []string // bodies of command and process substitutions
	pending []heredoc
	wordEnd int // where the last word of cur ended, to spot "2>"
}

func lex(s string) *lexer {
	l := &lexer{s: s, wordEnd: -1}
	l.run()
	return l
}

func (l *lexer) run() {
	for l.i < len(l.s) {
		start := l.i
		switch c := l.s[l.i]; c {
		case ' ', '\t', '\r':
			l.i++
		case '\n':
			l.i++
			l.finish()
			l.heredocBodies()
		case '#':
			for l.i < len(l.s) && l.s[l.i] != '\n' {
				l.i++
			}
		case ';', '(', ')':
			l.i++
			l.finish()
		case '|':
			l.i++
			if l.i < len(l.s) && (l.s[l.i] == '|' || l.s[l.i] == '&') {
				l.i++
			}
			l.finish()
		case '&':
			if l.at(l.i+1, '>') {
				l.i++
				l.redirectOut()
				break
			}
			l.i++
			if l.at(l.i, '&') {
				l.i++
			}
			l.finish()
		case '<':
			l.redirectIn()
		case '>':
			l.fdPrefix()
			l.redirectOut()
		default:
			if w, ok := l.word(); ok {
				l.cur.words = append(l.cur.words, w)
				l.wordEnd = l.i
			}
		}
		if l.i == start {
			l.i++ // never stall on a byte nothing claimed
		}
	}
	l.finish()
}

func (l *lexer) at(i int, c byte) bool { return i < len(l.s) && l.s[i] == c }

func (l *lexer) finish() {
	if len(l.cur.words) > 0 || len(l.cur.writes) > 0 || l.cur.hasDoc {
		l.cmds = append(l.cmds, l.cur)
	}
	l.cur, l.wordEnd = command{}, -1
}

// fdPrefix drops a file descriptor number written right before a
// redirection, as in 2>err.log.
func (l *lexer) fdPrefix() {
	n := len(l.cur.words)
	if n == 0 || l.wordEnd != l.i {
		return
	}
	if w := l.cur.words[n-1]; !w.quoted && digits(w.text) {
		l.cur.words = l.cur.words[:n-1]
	}
}

// redirectIn handles <, <<, <<-, <<<, <&, <> and <(...).
func (l *lexer) redirectIn() {
	l.fdPrefix()
	switch {
	case l.at(l.i+1, '('):
		l.i++
		l.substitution()
	case l.at(l.i+1, '<') && l.at(l.i+2, '<'): // here-string
		l.i += 3
		l.skipBlanks()
		l.word()
	case l.at(l.i+1, '<'):
		l.i += 2
		strip := l.at(l.i, '-')
		if strip {
			l.i++
		}
		l.skipBlanks()
		if w, ok := l.word(); ok {
			l.pending = append(l.pending, heredoc{delim: w.text, strip: strip, cmd: len(l.cmds)})
			l.cur.hasDoc = true
		}
	case l.at(l.i+1, '&'):
		l.i += 2
		l.skipBlanks()
		l.word()
	case l.at(l.i+1, '>'):
		l.i += 2
		l.skipBlanks()
		if w, ok := l.word(); ok {
			l.cur.writes = append(l.cur.writes, redirect{path: w.text})
		}
	default:
		l.i++
		l.skipBlanks()
		l.word()
	}
}

// redirectOut handles >, >>, >|, >&, &>, &>> and >(...), at the '>'.
func (l *lexer) redirectOut() {
	if l.at(l.i+1, '(') {
		l.i++
		l.substitution()
		return
	}
	l.i++
	appends := l.at(l.i, '>')
	if appends || l.at(l.i, '|') {
		l.i++
	}
	dup := l.at(l.i, '&')
	if dup {
		l.i++
	}
	l.skipBlanks()
	w, ok := l.word()
	if !ok || dup && (digits(w.text) || w.text == "-") {
		return
	}
	l.cur.writes = append(l.cur.writes, redirect{path: w.text, truncate: !appends})
}

func (l *lexer) skipBlanks() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

// heredocBodies consumes the bodies of the here-documents announced on the
// line that just ended.
func (l *lexer) heredocBodies() {
	for _, h := range l.pending {
		var body strings.Builder
		for l.i < len(l.s) {
			end := strings.IndexByte(l.s[l.i:], '\n')
			line := l.s[l.i:]
			if end >= 0 {
				line = l.s[l.i : l.i+end]
				l.i += end + 1
			} else {
				l.i = len(l.s)
			}
			if h.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		if h.cmd < len(l.cmds) {
			l.cmds[h.cmd].heredocs = append(l.cmds[h.cmd].heredocs, body.String())
		}
	}
	l.pending = l.pending[:0]
}

// isMeta reports whether c ends an unquoted word.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

// word reads one word at l.i, removing quotes and escapes, and collects
// the substitutions inside it. ok is false when l.i is not at a word.
func (l *lexer) word() (w word, ok bool) {
	start := l.i
	var b []byte // nil while the word is a plain slice of the input
	lit := func(from, to int) {
		if b != nil {
			b = append(b, l.s[from:to]...)
		}
	}
	grow := func() {
		if b == nil {
			b = append(make([]byte, 0, 32), l.s[start:l.i]...)
		}
		w.quoted = true
	}
	for l.i < len(l.s) && !isMeta(l.s[l.i]) {
		switch c := l.s[l.i]; {
		case c == '\'':
			grow()
			end := strings.IndexByte(l.s[l.i+1:], '\'')
			if end < 0 {
				end = len(l.s) - l.i - 1
			}
			b = append(b, l.s[l.i+1:l.i+1+end]...)
			l.i += end + 2
		case c == '$' && l.at(l.i+1, '\''):
			grow()
			l.i += 2
			for l.i < len(l.s) && l.s[l.i] != '\'' {
				if l.s[l.i] == '\\' && l.i+1 < len(l.s) {
					l.i++
				}
				b = append(b, l.s[l.i])
				l.i++
			}
			l.i++
		case c == '"':
			grow()
			l.i++
			b = l.doubleQuoted(b)
		case c == '\\':
			grow()
			if l.i+1 < len(l.s) && l.s[l.i+1] != '\n' {
				b = append(b, l.s[l.i+1])
			}
			l.i += 2
		case c == '$' && l.at(l.i+1, '('), c == '`':
			from := l.i
			l.dollarOrBacktick()
			lit(from, min(l.i, len(l.s)))
		case c == '$' && l.at(l.i+1, '{'):
			from := l.i
			end := strings.IndexByte(l.s[l.i:], '}')
			if end < 0 {
				l.i = len(l.s)
			} else {
				l.i += end + 1
			}
			lit(from, l.i)
		default:
			l.i++
			lit(l.i-1, l.i)
		}
	}
	l.i = min(l.i, len(l.s))
	if b != nil {
		return word{text: string(b), quoted: true}, true
	}
	if l.i == start {
		return word{}, false
	}
	return word{text: l.s[start:l.i]}, true
}

// doubleQuoted reads the inside of a double-quoted string, after the
// opening quote, through the closing one.
func (l *lexer) doubleQuoted(b []byte) []byte {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return b
		case c == '\\' && l.i+1 < len(l.s):
			switch n := l.s[l.i+1]; n {
			case '$', '`', '"', '\\':
				b = append(b, n)
			case '\n':
			default:
				b = append(b, c, n)
			}
			l.i += 2
		case c == '$' && l.at(l.i+1, '('), c == '`':
			from := l.i
			l.dollarOrBacktick()
			b = append(b, l.s[from:min(l.i, len(l.s))]...)
		default:
			b = append(b, c)
			l.i++
		}
	}
	return b
}

// dollarOrBacktick records the command substitution at l.i ($( or `) and
// moves past it.
func (l *lexer) dollarOrBacktick() {
	if l.s[l.i] == '`' {
		end := l.i + 1
		for end < len(l.s) && l.s[end] != '`' {
			if l.s[end] == '\\' {
				end++
			}
			end++
		}
		end = min(end, len(l.s))
		l.subs = append(l.subs, strings.ReplaceAll(l.s[l.i+1:end], "\\`", "`"))
		l.i = end + 1
		return
	}
	l.i++ // '$'
	l.substitution()
}

// substitution records the body of the parenthesised substitution whose
// '(' is at l.i and moves past its ')'.
func (l *lexer) substitution() {
	end := matchParen(l.s, l.i)
	l.subs = append(l.subs, l.s[l.i+1:end])
	l.i = end + 1
}

// matchParen returns the index of the ')' matching the '(' at open, or
// len(s) if there is none.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			if end := strings.IndexByte(s[i+1:], '\''); end >= 0 {
				i += end + 1
			} else {
				return len(s)
			}
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
