//go:build race

package reduce

// raceEnabled: the race detector slows the renderer about 40 times and
// finds nothing in it (it runs on one goroutine): the longest replays take
// fewer split points under it.
const raceEnabled = true
