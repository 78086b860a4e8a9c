package main

import "testing"

// BenchmarkNewServer is the part of start-up the tool table costs:
// building the server with every tool, resource and prompt registered, as
// serve does before it answers anything (BenchmarkStartupVsNoop measures
// the whole start-up from a client).
func BenchmarkNewServer(b *testing.B) {
	for b.Loop() {
		newServerWith(nil, nil, humanConfig{}, nil)
	}
}
