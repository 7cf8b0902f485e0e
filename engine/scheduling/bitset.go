package scheduling

import "math/bits"

// bitset is a set of small non-negative integers (instance type or candidate indexes).
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func fullBitset(n int) bitset {
	b := newBitset(n)
	for i := range n {
		b.set(i)
	}
	return b
}

func (b bitset) set(i int)      { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(uint(i)%64)) != 0 }
func (b bitset) clear(i int)    { b[i/64] &^= 1 << (uint(i) % 64) }

// setGrow sets i, growing the set when needed.
func (b *bitset) setGrow(i int) {
	for i/64 >= len(*b) {
		*b = append(*b, 0)
	}
	b.set(i)
}

func (b bitset) clone() bitset { return append(bitset(nil), b...) }

// and keeps only the members also in o.
func (b bitset) and(o bitset) {
	for i := range b {
		if i < len(o) {
			b[i] &= o[i]
		} else {
			b[i] = 0
		}
	}
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

func (b bitset) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// next returns the smallest member >= i, or -1.
func (b bitset) next(i int) int {
	w := i / 64
	if w >= len(b) {
		return -1
	}
	word := b[w] >> (uint(i) % 64)
	if word != 0 {
		return i + bits.TrailingZeros64(word)
	}
	for w++; w < len(b); w++ {
		if b[w] != 0 {
			return w*64 + bits.TrailingZeros64(b[w])
		}
	}
	return -1
}
