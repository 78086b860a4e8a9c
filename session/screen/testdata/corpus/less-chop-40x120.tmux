# less-chop-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 1663
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
        fmt.Println("hello, world") // 你好
prog.go
@ 1794







































:
@ 1909







































(END)
@ 1947

[exited]






































