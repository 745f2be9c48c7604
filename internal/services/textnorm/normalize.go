package textnorm

import (
	"context"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Flag records what Normalize undid in a word, so a classifier can tell that a text was
// disguised (and a service can label it obfuscation).
type Flag uint8

// Word flags.
const (
	// FlagInvisible: zero-width or other invisible characters were removed inside the word.
	FlagInvisible Flag = 1 << iota
	// FlagHomoglyph: Cyrillic or Greek look-alike letters in a Latin word were mapped to Latin.
	FlagHomoglyph
	// FlagLeet: digits or symbols inside the word were read as letters ("1gn0r3").
	FlagLeet
	// FlagSpaced: the word was re-joined from letter-spaced single letters ("i g n o r e").
	FlagSpaced
	// FlagEncoded: the word comes from a base64 or hex blob that decoded to text. Normalize
	// never sets it; callers that normalize decoded blobs (see DecodeBlobs) pass it in.
	FlagEncoded
)

// Obfuscation is the set of flags that show a deliberate disguise.
const Obfuscation = FlagInvisible | FlagHomoglyph | FlagLeet | FlagSpaced | FlagEncoded

// MaxWordRunes bounds the length of a normalized word: longer runs of word characters (a
// 100,000-character "word", a base64 blob, a sentence in a script written without spaces) are
// cut into pieces of this many runes, so the work per word stays bounded.
const MaxWordRunes = 64

// minSpacedRun is the shortest run of single letters re-joined into a word.
const minSpacedRun = 4

// checkEvery is how many input bytes Normalize handles between two context checks.
const checkEvery = 4096

// Words is text in normal form: lower-case words of letters, digits and combining marks,
// separated by single spaces in Text. Word i is Text[Start(i):Ends[i]], with flags Flags[i].
// A Words can be reused after Reset; it is not safe for concurrent use.
type Words struct {
	Text  []byte
	Ends  []int
	Flags []Flag

	raw      []byte // the current raw word, invisible characters removed
	needNFKC bool   // raw holds a rune NFKC may change (a compatibility character or a mark)
	runes    []rune // scratch for foldRunes
	nfkc     []byte // scratch for NFKC
}

// Len returns the number of words.
func (w *Words) Len() int { return len(w.Ends) }

// Start returns the byte offset of word i in Text.
func (w *Words) Start(i int) int {
	if i == 0 {
		return 0
	}
	return w.Ends[i-1] + 1
}

// Word returns word i. The slice aliases Text.
func (w *Words) Word(i int) []byte { return w.Text[w.Start(i):w.Ends[i]] }

// Reset empties w, keeping its buffers.
func (w *Words) Reset() {
	w.Text, w.Ends, w.Flags = w.Text[:0], w.Ends[:0], w.Flags[:0]
}

// Normalize appends the normal form of s to w and returns an error wrapping ctx.Err() when ctx is
// done; it checks ctx every 4,096 bytes of input. extra is ORed into the flags of every word it
// appends (pass 0, or FlagEncoded for the text of a decoded blob).
//
// The normal form: invisible characters (zero-width, format, fillers, variation selectors) are
// removed; each word is put in NFKC (so full-width, mathematical and circled letters become
// plain ones), lower-cased, with accents removed from Latin letters (é→e, ß→ss); Cyrillic and
// Greek look-alikes inside words that also hold Latin letters become Latin; digits and symbols
// standing for letters inside words become letters ("1gn0r3" → "ignore"); apostrophes are
// dropped ("don't" → "dont"); a masking "*" between letters is kept ("f*ck"); runs of at least
// four single letters are re-joined ("i g n o r e" → "ignore"); in scripts written without spaces
// (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) every character with its marks is a word;
// everything else separates words. The work is linear in len(s).
func Normalize(ctx context.Context, s string, w *Words, extra Flag) error {
	first := len(w.Ends)
	var flags Flag
	pendingInvisible := false
	w.needNFKC = false
	nextCheck := checkEvery
	runes := 0     // runes in w.raw
	dense := false // w.raw is one character of a dense script
	for i := 0; i < len(s); {
		if i >= nextCheck {
			if err := ctx.Err(); err != nil {
				return err
			}
			nextCheck = i + checkEvery
		}
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if dense {
				w.flush(flags | extra)
				flags, runes, dense = 0, 0, false
			}
			if asciiWord[c] {
				if pendingInvisible && runes > 0 {
					flags |= FlagInvisible
				}
				pendingInvisible = false
				// Take the whole run of ASCII word bytes at once, up to the word's cap.
				j, stop := i, min(len(s), i-1+MaxWordRunes-runes)
				for j < stop && s[j] < utf8.RuneSelf && asciiWord[s[j]] {
					j++
				}
				w.raw = append(w.raw, s[i-1:j]...)
				runes += j - (i - 1)
				i = j
				if runes >= MaxWordRunes {
					w.flush(flags | extra)
					flags, runes = 0, 0
				}
				continue
			}
			w.flush(flags | extra)
			flags, runes, pendingInvisible, dense = 0, 0, false, false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		cl := classOf(r)
		if dense && cl&cMark == 0 { // a character of a dense script takes only its marks along
			w.flush(flags | extra)
			flags, runes, dense = 0, 0, false
		}
		switch {
		case cl&cInvisible != 0:
			pendingInvisible = true
		case cl&cDense != 0:
			w.flush(flags | extra)
			flags, pendingInvisible = 0, false // a zero-width space separates Thai or Khmer words
			w.raw = utf8.AppendRune(w.raw, r)
			runes, dense = 1, true
		case cl&(cLetter|cMark|cDigit|cCompat) != 0 || isLeetOrApostrophe(r):
			if pendingInvisible && runes > 0 {
				flags |= FlagInvisible
			}
			pendingInvisible = false
			w.needNFKC = w.needNFKC || cl&(cCompat|cMark) != 0
			w.raw = utf8.AppendRune(w.raw, r)
			runes++
			if runes >= MaxWordRunes {
				w.flush(flags | extra)
				flags, runes = 0, 0
			}
		default:
			w.flush(flags | extra)
			flags, runes, pendingInvisible, dense = 0, 0, false, false
		}
	}
	w.flush(flags | extra)
	w.joinSpaced(first)
	return nil
}

// asciiWord marks the ASCII bytes that belong to raw words: letters, digits, apostrophe, the
// mask "*" and the symbols read as letters in leetspeak.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		r := rune(c)
		t[c] = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '\'' || r == '*'
		if _, ok := leetOf(r); ok {
			t[c] = true
		}
	}
	return t
}()

// isLeetOrApostrophe reports whether the non-ASCII rune r is a typographic apostrophe or a
// symbol read as a letter.
func isLeetOrApostrophe(r rune) bool {
	if r == '’' {
		return true
	}
	_, ok := leetOf(r)
	return ok
}

// flush folds the pending raw word and appends what it yields.
func (w *Words) flush(flags Flag) {
	if len(w.raw) == 0 {
		return
	}
	raw := w.raw
	if !w.needNFKC && asciiLetters(raw) {
		// The common word, ASCII letters only: folding only lowers it (what foldRunes does
		// to such a word, without decoding it rune by rune).
		n := len(w.Text)
		if n > 0 {
			w.Text = append(w.Text, ' ')
			n++
		}
		w.Text = append(w.Text, raw...)
		for k, c := range w.Text[n:] {
			w.Text[n+k] = c | 0x20 // 'A'..'Z' to 'a'..'z'; 'a'..'z' stay
		}
		w.Ends = append(w.Ends, len(w.Text))
		w.Flags = append(w.Flags, flags)
		w.raw = w.raw[:0]
		return
	}
	if w.needNFKC {
		w.nfkc = norm.NFKC.Append(w.nfkc[:0], raw...)
		raw = w.nfkc
		w.needNFKC = false
	}
	// NFKC can turn one raw word into several (a full-width space or punctuation): split again.
	w.runes = w.runes[:0]
	for i := 0; i < len(raw); {
		r, size := rune(raw[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(raw[i:])
		}
		i += size
		if r < utf8.RuneSelf && asciiWord[r] || r >= utf8.RuneSelf && (classOf(r)&(cLetter|cMark|cDigit) != 0 || isLeetOrApostrophe(r)) {
			w.runes = append(w.runes, r)
			continue
		}
		w.foldRunes(flags)
		w.runes = w.runes[:0]
	}
	w.foldRunes(flags)
	w.raw = w.raw[:0]
}

// asciiLetters reports whether b has only the letters a-z and A-Z.
func asciiLetters(b []byte) bool {
	for _, c := range b {
		if c|0x20 < 'a' || c|0x20 > 'z' {
			return false
		}
	}
	return true
}

// foldRunes folds the word in w.runes and appends it when anything is left.
func (w *Words) foldRunes(flags Flag) {
	rs := w.runes
	if len(rs) == 0 {
		return
	}
	letters, latin := 0, false
	for _, r := range rs {
		if isLetter(r) {
			letters++
			if r < utf8.RuneSelf || isLatin(r) {
				latin = true
			}
		}
	}
	start := len(w.Text)
	if start > 0 {
		w.Text = append(w.Text, ' ')
		start++
	}
	for i, r := range rs {
		switch {
		case r == '\'' || r == '’':
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z'):
			w.Text = append(w.Text, byte(r))
		case r < utf8.RuneSelf && ('A' <= r && r <= 'Z'):
			w.Text = append(w.Text, byte(r+'a'-'A'))
		case r < utf8.RuneSelf && !asciiLetter(r):
			w.Text = w.foldSymbol(rs, i, letters, &flags)
		case classOf(r)&cMark != 0:
			// Combining marks left after NFKC on Latin letters are decoration ("zalgo");
			// other scripts need theirs.
			if base := baseBefore(rs, i); base >= 0x250 && !isLatin(base) {
				w.Text = utf8.AppendRune(w.Text, r)
			}
		case classOf(r)&cLetter != 0:
			if classOf(r)&cUpper != 0 {
				r = unicode.ToLower(r)
			}
			if latin {
				if m, ok := homoglyph[r]; ok {
					flags |= FlagHomoglyph
					w.Text = append(w.Text, byte(m))
					continue
				}
			}
			w.Text = appendFoldedLetter(w.Text, r)
		default:
			w.Text = w.foldSymbol(rs, i, letters, &flags)
		}
	}
	if len(w.Text) == start { // nothing left: take the separator back
		if start > 0 {
			w.Text = w.Text[:start-1]
		}
		return
	}
	w.Ends = append(w.Ends, len(w.Text))
	w.Flags = append(w.Flags, flags)
}

// joinSpaced re-joins, among the words from index first on, runs of at least four single Latin
// letters ("i g n o r e"), in place. Joined words are cut at MaxWordRunes letters.
func (w *Words) joinSpaced(first int) {
	n := len(w.Ends)
	single := func(i int) bool {
		s := w.Start(i)
		return w.Ends[i]-s == 1 && 'a' <= w.Text[s] && w.Text[s] <= 'z'
	}
	// Find whether any run exists first; most texts have none and stay untouched.
	found := false
	for i, run := first, 0; i < n; i++ {
		if single(i) {
			if run++; run >= minSpacedRun {
				found = true
				break
			}
		} else {
			run = 0
		}
	}
	if !found {
		return
	}
	text := w.Text[:w.Start(first)]
	if first > 0 {
		text = text[:len(text)-1] // without the separator before word first
	}
	ends, flags := w.Ends[:first], w.Flags[:first]
	// The old text is read while the new one is written over it; the new one is never longer,
	// so copy the tail first to keep the reads intact.
	old := append([]byte(nil), w.Text[w.Start(first):]...)
	oldEnds := append([]int(nil), w.Ends[first:]...)
	oldFlags := append([]Flag(nil), w.Flags[first:]...)
	base := w.Start(first)
	word := func(k int) []byte {
		s := 0
		if k > 0 {
			s = oldEnds[k-1] + 1 - base
		}
		return old[s : oldEnds[k]-base]
	}
	isSingle := func(k int) bool {
		b := word(k)
		return len(b) == 1 && 'a' <= b[0] && b[0] <= 'z'
	}
	emit := func(b []byte, f Flag) {
		if len(text) > 0 {
			text = append(text, ' ')
		}
		text = append(text, b...)
		ends = append(ends, len(text))
		flags = append(flags, f)
	}
	for k := 0; k < len(oldEnds); {
		j := k
		for j < len(oldEnds) && isSingle(j) {
			j++
		}
		if j-k >= minSpacedRun {
			for p := k; p < j; p += MaxWordRunes {
				var joined []byte
				var f Flag = FlagSpaced
				for q := p; q < min(p+MaxWordRunes, j); q++ {
					joined = append(joined, word(q)...)
					f |= oldFlags[q]
				}
				emit(joined, f)
			}
			k = j
			continue
		}
		if j == k {
			j++
		}
		for q := k; q < j; q++ {
			emit(word(q), oldFlags[q])
		}
		k = j
	}
	w.Text, w.Ends, w.Flags = text, ends, flags
}

// isLatin reports whether r is a Latin letter outside ASCII.
func isLatin(r rune) bool {
	return r >= 0xC0 && r <= 0x24F || r >= 0x1E00 && r <= 0x1EFF
}

// foldSymbol appends what the digit or symbol rs[i] of a word with letters letters stands for:
// a letter when it is leetspeak inside a word ("1gn0r3"), a masking "*" between letters, the
// digit itself, or nothing.
func (w *Words) foldSymbol(rs []rune, i, letters int, flags *Flag) []byte {
	r := rs[i]
	if r == '*' {
		if letterBefore(rs, i) && letterAfter(rs, i) {
			return append(w.Text, '*')
		}
		return w.Text
	}
	digit := r >= '0' && r <= '9' || r >= utf8.RuneSelf && classOf(r)&cDigit != 0
	m, isLeet := leetOf(r)
	interior := leetLetterAt(rs, i-1) || leetLetterAt(rs, i+1)
	if isLeet && letters >= 2 && interior && (digit || r == '@' || r == '$' || r == '€' || leetLetterAt(rs, i+1)) {
		*flags |= FlagLeet
		return append(w.Text, byte(m))
	}
	if digit {
		return utf8.AppendRune(w.Text, r)
	}
	return w.Text
}

func asciiLetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiLetter(r)
	}
	return classOf(r)&cLetter != 0
}

// leetLetterAt reports whether rs[i] is a letter or a leet digit next to one.
func leetLetterAt(rs []rune, i int) bool {
	if i < 0 || i >= len(rs) {
		return false
	}
	if isLetter(rs[i]) {
		return true
	}
	_, ok := leetOf(rs[i])
	return ok && rs[i] >= '0' && rs[i] <= '9' && (i > 0 && isLetter(rs[i-1]) || i+1 < len(rs) && isLetter(rs[i+1]))
}

func letterBefore(rs []rune, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if isLetter(rs[j]) {
			return true
		}
	}
	return false
}

func letterAfter(rs []rune, i int) bool {
	for j := i + 1; j < len(rs); j++ {
		if isLetter(rs[j]) {
			return true
		}
	}
	return false
}

// AppendFoldedLetter appends the letter r as Normalize writes it: in lower case, with any
// accent removed from a Latin letter (É→e, ß→ss, æ→ae). For callers that must read words the
// way Normalize does while keeping their own offsets into the raw text.
func AppendFoldedLetter(b []byte, r rune) []byte {
	return appendFoldedLetter(b, unicode.ToLower(r))
}

// appendFoldedLetter appends the lower-case letter r with any accent removed from a Latin
// letter (é→e, ß→ss, æ→ae).
func appendFoldedLetter(b []byte, r rune) []byte {
	if isLatin(r) {
		if s, ok := latinFold[r]; ok {
			return append(b, s...)
		}
	}
	if r == 'ς' { // Greek final sigma
		r = 'σ'
	}
	return utf8.AppendRune(b, r)
}

// latinFold maps accented and special lower-case Latin letters to plain ASCII: the base letter
// of their canonical decomposition, or a conventional spelling for those without one.
var latinFold = func() map[rune]string {
	m := map[rune]string{
		'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ł': "l", 'ħ': "h", 'ı': "i",
		'ŀ': "l", 'þ': "th", 'ð': "d", 'ŋ': "n", 'ſ': "s", 'ẞ': "ss",
	}
	for _, span := range [][2]rune{{0xC0, 0x24F}, {0x1E00, 0x1EFF}} {
		for r := span[0]; r <= span[1]; r++ {
			if _, done := m[r]; done || !unicode.IsLower(r) {
				continue
			}
			d := norm.NFD.String(string(r))
			if b := d[0]; len(d) > 1 && b < utf8.RuneSelf && 'a' <= b && b <= 'z' {
				m[r] = d[:1]
			}
		}
	}
	return m
}()
