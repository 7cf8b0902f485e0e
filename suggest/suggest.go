// Package suggest finds the name a mistyped one most likely meant, for "did you mean" hints in
// errors about skins, the config file and manifests.
package suggest

import "strings"

// maxTypo is the longest key Nearest looks at; longer ones are not typos of a name.
const maxTypo = 64

// Nearest finds the name a mistyped key most likely meant: the closest by edit distance, ignoring
// case, if it is within a third of the key's length (so tabel finds table, and fgcolor fgColor).
// Of equally close names the first wins, so names should be sorted.
func Nearest(key string, names []string) (string, bool) {
	if len(key) > maxTypo {
		return "", false
	}
	best, bestDist := "", -1
	for _, name := range names {
		d := editDistance(strings.ToLower(key), strings.ToLower(name))
		if bestDist < 0 || d < bestDist {
			best, bestDist = name, d
		}
	}
	if bestDist < 0 || bestDist > 2 || bestDist > len(key)/3 {
		return "", false
	}
	return best, true
}

// editDistance counts the insertions, deletions, substitutions and swaps of adjacent letters that
// turn a into b (optimal string alignment distance).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
