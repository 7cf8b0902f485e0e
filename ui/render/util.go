package render

import (
	"slices"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

func sortBy[T any](xs []T, key func(T) string) {
	slices.SortStableFunc(xs, func(a, b T) int { return strings.Compare(key(a), key(b)) })
}
