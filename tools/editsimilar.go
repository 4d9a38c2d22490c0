package tools

import (
	"math/bits"
	"strings"
)

// When old_string matches nowhere, even loosely, the failed edit shows the
// lines of the file most like it, so that the model can copy them exactly.
//
// The candidates are the windows of the file as long as old_string (as its
// first maxScoredLines lines, for a long one). Lines are compared by their
// keys, leading and trailing whitespace left out. A window scores the sum,
// over old_string's lines, of the similarity of each to the file line at
// its place in the window or up to similarSlack lines away, the best of
// those, weighed by the distance (1, 3/4, 1/2), so that a line too many or
// too few in old_string costs little and the aligned window still wins;
// it is divided by old_string's length, for a score from 0 to 1. Two
// stages keep the work linear in the size of the file:
//
//  1. every window is scored with a cheap similarity, 1 for equal keys,
//     else the Dice coefficient of the two lines' character trigrams
//     hashed into 256-bit sets, over at most coarseLines of old_string's
//     non-blank lines, spread evenly;
//  2. the best fineCandidates windows are scored again with the Dice
//     coefficient of the lines' character bigrams, counted exactly (on
//     the first maxKeyBytes of each key), and the best wins, the earliest
//     on a tie.
//
// The winner is shown if it scores at least minSimilarity, with
// similarPad lines around it, at most maxShownLines in all.
const (
	maxScoredLines = 40
	coarseLines    = 12
	similarSlack   = 2
	fineCandidates = 16
	maxKeyBytes    = 256
	minSimilarity  = 0.3
	similarPad     = 2
	maxShownLines  = 30
)

// similarRegion returns the lines of content most like old, and whether
// they are similar enough to show.
func similarRegion(content, old string) (lineRange, bool) {
	lines := splitLines(content)
	pat := lineKeys(textLines(old))
	pat = pat[:min(len(pat), maxScoredLines)]
	if len(lines) == 0 || len(pat) == 0 {
		return lineRange{}, false
	}
	keys := lineKeys(lines)
	w := min(len(pat), len(keys))
	best, score := -1, 0.0
	for _, s := range coarseBest(keys, pat, w) {
		if f := fineScore(keys, pat, s, w); f > score || f == score && s < best {
			best, score = s, f
		}
	}
	if best < 0 || score < minSimilarity {
		return lineRange{}, false
	}
	return lineRange{best, best + w}, true
}

// weigh weighs a similarity found d lines from its place: by 1 at its
// place, 3/4 one line away, 1/2 two lines away.
func weigh(sim float64, d int) float64 {
	return sim * float64(4-max(d, -d)) / 4
}

// coarseBest returns the starts of the fineCandidates windows of w lines
// of keys that score best against pat with cheapSim, best first.
func coarseBest(keys, pat []string, w int) []int {
	sigs := make([]lineSig, len(keys))
	for i, k := range keys {
		sigs[i] = sigOf(k)
	}
	score := make([]int, len(keys)-w+1)
	sim := make([]int, len(keys))
	near := make([]int, len(keys)) // the best weighed sim within similarSlack
	for _, k := range spread(pat[:w], coarseLines) {
		ps := sigOf(pat[k])
		for j := range sigs {
			sim[j] = cheapSim(&ps, &sigs[j])
		}
		for j := range near { // weighed as by weigh, times 4
			v := 0
			for d := max(-similarSlack, -j); d <= similarSlack && j+d < len(sim); d++ {
				v = max(v, sim[j+d]*(4-max(d, -d)))
			}
			near[j] = v
		}
		for s := range score {
			score[s] += near[s+k]
		}
	}
	return topStarts(score, fineCandidates)
}

// spread returns the indexes of at most n of the non-blank keys, spread
// evenly over them.
func spread(keys []string, n int) []int {
	var full []int
	for k, key := range keys {
		if key != "" {
			full = append(full, k)
		}
	}
	if len(full) <= n {
		return full
	}
	picked := make([]int, n)
	for i := range picked {
		picked[i] = full[i*len(full)/n]
	}
	return picked
}

// topStarts returns the indexes of the n highest scores, highest first,
// the earliest first among equals.
func topStarts(score []int, n int) []int {
	var top []int
	for s, v := range score {
		if len(top) == n && v <= score[top[n-1]] {
			continue
		}
		i := len(top)
		for i > 0 && score[top[i-1]] < v {
			i--
		}
		top = append(top[:min(len(top), n-1)], 0)
		copy(top[i+1:], top[i:])
		top[i] = s
	}
	return top
}

// fineScore is the second stage's score of the window of w lines of keys
// at s against pat.
func fineScore(keys, pat []string, s, w int) float64 {
	sum := 0.0
	for k := range w {
		best := 0.0
		for d := -similarSlack; d <= similarSlack; d++ {
			if j := s + k + d; j >= 0 && j < len(keys) {
				best = max(best, weigh(dice(pat[k], keys[j]), d))
			}
		}
		sum += best
	}
	return sum / float64(len(pat))
}

// lineSig is what the cheap similarity knows of a line.
type lineSig struct {
	hash  uint64    // of the whole key
	grams [4]uint64 // a bit for each trigram's hash
}

func sigOf(key string) lineSig {
	key = key[:min(len(key), maxKeyBytes)]
	s := lineSig{hash: fnv(key)}
	if len(key) < 3 {
		h := s.hash % 256
		s.grams[h/64] |= 1 << (h % 64)
	}
	for i := 0; i+3 <= len(key); i++ {
		h := fnv(key[i:i+3]) % 256
		s.grams[h/64] |= 1 << (h % 64)
	}
	return s
}

// fnv is the 64-bit FNV-1a hash of s.
func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// cheapSim is the first stage's similarity of two lines, out of 64.
func cheapSim(a, b *lineSig) int {
	if a.hash == b.hash {
		return 64
	}
	both, n := 0, 0
	for i := range a.grams {
		both += bits.OnesCount64(a.grams[i] & b.grams[i])
		n += bits.OnesCount64(a.grams[i]) + bits.OnesCount64(b.grams[i])
	}
	if n == 0 {
		return 0
	}
	return 128 * both / n
}

// dice is the Dice coefficient of the character bigrams of a and b (their
// first maxKeyBytes bytes): twice the bigrams they share over the bigrams
// they have, 1 for equal strings.
func dice(a, b string) float64 {
	a, b = a[:min(len(a), maxKeyBytes)], b[:min(len(b), maxKeyBytes)]
	if a == b {
		return 1
	}
	if len(a) < 2 || len(b) < 2 {
		return 0
	}
	count := make(map[string]int, len(a))
	for i := range len(a) - 1 {
		count[a[i:i+2]]++
	}
	common := 0
	for i := range len(b) - 1 {
		if count[b[i:i+2]] > 0 {
			count[b[i:i+2]]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b)-2)
}

// showLines formats the lines r of a file (lines as splitLines returns
// them), with similarPad lines either side and at most maxShownLines in
// all, numbered as read_file numbers them.
func showLines(lines []string, r lineRange) string {
	from := max(r.start-similarPad, 0)
	to := min(r.end+similarPad, len(lines), from+maxShownLines)
	var b strings.Builder
	for i := from; i < to; i++ {
		text := strings.TrimSuffix(strings.TrimSuffix(lines[i], "\n"), "\r")
		b.WriteString(numberedLine(i+1, text, len(text)))
	}
	return b.String()
}
