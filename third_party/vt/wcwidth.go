package vt

import "sort"

// A wcwidthRange is a run of code points of the same width.
type wcwidthRange struct {
	lo, hi rune
	width  int8
}

// runeWidth returns how many cells r takes when text is laid out one code
// point at a time, as the C library's wcwidth measures it (see
// wcwidth_table.go): 0 for combining marks and other zero-width characters,
// 2 for wide ones (East Asian wide and fullwidth, emoji presentation), -1
// for code points it does not know (unassigned), 1 for the rest.
func runeWidth(r rune) int {
	if r < 0x300 {
		return 1
	}
	i := sort.Search(len(wcwidthTable), func(i int) bool { return wcwidthTable[i].hi >= r })
	if i < len(wcwidthTable) && wcwidthTable[i].lo <= r {
		return int(wcwidthTable[i].width)
	}
	return 1
}
