# vim-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 2445
package main

import "fmt"

// main says hello.
func main() {
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
prog.go                                                                                               1,1            Top
"prog.go" 57L, 2014B
@ 2479
package main

import "fmt"

// main says hello.
func main() {
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
prog.go                                                                                               20,2-9         Top
"prog.go" 57L, 2014B
@ 2616
package main

import "fmt"

// main says hello.
func main() {
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
prog.go [+]                                                                                           20,2-9         Top

@ 2781
package main

import "fmt"

// main says hello.
func main() {
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
// inserted 中文 ❤️ line
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
        fmt.Println("hello, world") // 你好
prog.go [+]                                                                                           20,2-9         Top
-- INSERT --
@ 7535
Wide characters and emoji, laid out by wcwidth:             |package main
❤️ ☺️ ✔️ end                                                   |
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨<200d>👩<200d>👧 x, flag|import "fmt"
 🇫 🇷  x                                                     |
soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyy|// main says hello.
yyyyyyyyyyyyyyyyyyyy中文                                    |func main() {
日本語のテキストがここにあります。長い行長い行長い行長い行長|        fmt.Println("hello, world") // 你好
い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長|        fmt.Println("hello, world") // 你好
い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長|        fmt.Println("hello, world") // 你好
い行長い行長い行長い行長い行長い行                          |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |// inserted 中文 ❤️ line
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
line of text for scrolling                                  |        fmt.Println("hello, world") // 你好
wide.txt                                  1,1            Top prog.go [+]                              20,30-23       Top
"wide.txt" 65L, 2191B
@ 7673

[exited]






































