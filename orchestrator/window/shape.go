package window

// The shape of text, as a tokenizer cuts it. Bytes a token is one figure
// for a whole request, but text is not all alike: a listing of numbered
// files (data_001.log) comes to about 2.2 bytes a token where the prose
// and code around it come to 4. ShapeTokens counts text the way
// byte-pair tokenizers cut it, roughly; the server's counts then say by
// how much it is off for this model (Window's shape factor), and a tool
// result is sized by its own shape, not by the density of the prompt.

// class is the kind of a byte, for ShapeTokens.
type class uint8

const (
	letter class = iota
	digit
	mark // ASCII punctuation
	space
	newline
	other // bytes of UTF-8 sequences
)

// classes is the class of every byte value; read only.
var classes = func() (t [256]class) {
	for c := range 256 {
		b := byte(c)
		switch {
		case 'a' <= b|0x20 && b|0x20 <= 'z':
			t[c] = letter
		case '0' <= b && b <= '9':
			t[c] = digit
		case b == '\n':
			t[c] = newline
		case b == ' ' || b == '\t' || b == '\r':
			t[c] = space
		case b < 0x80:
			t[c] = mark
		default:
			t[c] = other
		}
	}
	return t
}()

// ShapeTokens counts the tokens of s as a byte-pair tokenizer cuts text:
// a word (its letters, the space before it going with it) one for each 6
// letters; a number one for each 2 digits; punctuation one for each 2
// marks; a line break one; other runs of spaces one for each 4; other
// bytes (UTF-8) one for each 3.
func ShapeTokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := classes[s[i]]
		j := i + 1
		if c != newline {
			for j < len(s) && classes[s[j]] == c {
				j++
			}
		}
		run := j - i
		switch c {
		case letter:
			n += (run + 5) / 6
		case digit, mark:
			n += (run + 1) / 2
		case newline:
			n++
		case space:
			if run > 1 || j == len(s) || classes[s[j]] != letter {
				n += (run + 3) / 4
			}
		default:
			n += (run + 2) / 3
		}
		i = j
	}
	return n
}
