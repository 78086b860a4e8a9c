package reduce_test

import (
	"fmt"
	"strconv"

	"github.com/ttymux/ttymux/session/reduce"
)

func ExampleRender() {
	out := "\x1b]0;build\x07\x1b[1mBuilding\x1b[0m\r\n" +
		"  0%\r 50%\r100%\r\n" +
		"\x1b[31merror:\x1b[0m disk full\r\n"
	for _, line := range reduce.Render([]byte(out)) {
		fmt.Println(line)
	}
	// Output:
	// Building
	// 100%
	// error: disk full
}

func ExampleRenderer() {
	r := reduce.Renderer{Emit: func(line string, num int64) { fmt.Println(num, line) }}
	// Two progress lines redrawn with cursor-up, split across writes.
	fmt.Fprint(&r, "a: 0%\r\nb: 0%\r\n\x1b[2A\x1b[2Ka: 50%\r\n\x1b[2K")
	fmt.Fprint(&r, "b: 50%\r\n\x1b[2A\x1b[2Ka: done\r\n\x1b[2Kb: done\r\nok\r\n")
	r.Flush()
	// Output:
	// 0 a: done
	// 1 b: done
	// 6 ok
}

func ExampleReduce() {
	var lines []string
	for i := 1; i <= 1000; i++ {
		lines = append(lines, strconv.Itoa(i))
	}
	lines[499] = "main.go:12:5: undefined: x"
	res := reduce.Reduce(lines, reduce.Options{
		MaxLines: 10, Head: 2, Tail: 2,
		ReadHint: func(from, to int64) string {
			return fmt.Sprintf(`read {"session_id":"s1","mode":"range","from_line":%d,"to_line":%d}`, from, to)
		},
	})
	fmt.Println(res.Text)
	for _, note := range res.Notes {
		fmt.Println("note:", note)
	}
	// Output:
	// 1
	// 2
	// [… 497 lines elided (session lines 3–499): read {"session_id":"s1","mode":"range","from_line":3,"to_line":499} to see them]
	// main.go:12:5: undefined: x
	// [… 498 lines elided (session lines 501–998) …]
	// 999
	// 1000
	// note: folded 1,000 lines to 7
	// note: kept 1 line that looks like an error or a warning from the elided middle
}
