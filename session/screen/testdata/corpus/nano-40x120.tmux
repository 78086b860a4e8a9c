# nano-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 3012
  GNU nano 7.2                                            prog.go
 1 package main
 2
 3 import "fmt"
 4
 5 // main says hello.
 6 func main() {
 7         fmt.Println("hello, world") // 你好
 8         fmt.Println("hello, world") // 你好
 9         fmt.Println("hello, world") // 你好
10         fmt.Println("hello, world") // 你好
11         fmt.Println("hello, world") // 你好
12         fmt.Println("hello, world") // 你好
13         fmt.Println("hello, world") // 你好
14         fmt.Println("hello, world") // 你好
15         fmt.Println("hello, world") // 你好
16         fmt.Println("hello, world") // 你好
17         fmt.Println("hello, world") // 你好
18         fmt.Println("hello, world") // 你好
19         fmt.Println("hello, world") // 你好
20         fmt.Println("hello, world") // 你好
21         fmt.Println("hello, world") // 你好
22         fmt.Println("hello, world") // 你好
23         fmt.Println("hello, world") // 你好
24         fmt.Println("hello, world") // 你好
25         fmt.Println("hello, world") // 你好
26         fmt.Println("hello, world") // 你好
27         fmt.Println("hello, world") // 你好
28         fmt.Println("hello, world") // 你好
29         fmt.Println("hello, world") // 你好
30         fmt.Println("hello, world") // 你好
31         fmt.Println("hello, world") // 你好
32         fmt.Println("hello, world") // 你好
33         fmt.Println("hello, world") // 你好
34         fmt.Println("hello, world") // 你好
35         fmt.Println("hello, world") // 你好
36         fmt.Println("hello, world") // 你好
                                                   [ Read 57 lines ]
^G Help        ^O Write Out   ^W Where Is    ^K Cut         ^T Execute     ^C Location    M-U Undo       M-A Set Mark
^X Exit        ^R Read File   ^\ Replace     ^U Paste       ^J Justify     ^/ Go To Line  M-E Redo       M-6 Copy
@ 3839
  GNU nano 7.2                                            prog.go
 1 package main
 2
 3 import "fmt"
 4
 5 // main says hello.
 6 func main() {
 7         fmt.Println("hello, world") // 你好
 8         fmt.Println("hello, world") // 你好
 9         fmt.Println("hello, world") // 你好
10         fmt.Println("hello, world") // 你好
11         fmt.Println("hello, world") // 你好
12         fmt.Println("hello, world") // 你好
13         fmt.Println("hello, world") // 你好
14         fmt.Println("hello, world") // 你好
15         fmt.Println("hello, world") // 你好
16         fmt.Println("hello, world") // 你好
17         fmt.Println("hello, world") // 你好
18         fmt.Println("hello, world") // 你好
19         fmt.Println("hello, world") // 你好
20         fmt.Println("hello, world") // 你好
21         fmt.Println("hello, world") // 你好
22         fmt.Println("hello, world") // 你好
23         fmt.Println("hello, world") // 你好
24         fmt.Println("hello, world") // 你好
25         fmt.Println("hello, world") // 你好
26         fmt.Println("hello, world") // 你好
27         fmt.Println("hello, world") // 你好
28         fmt.Println("hello, world") // 你好
29         fmt.Println("hello, world") // 你好
30         fmt.Println("hello, world") // 你好
31         fmt.Println("hello, world") // 你好
32         fmt.Println("hello, world") // 你好
33         fmt.Println("hello, world") // 你好
34         fmt.Println("hello, world") // 你好
35         fmt.Println("hello, world") // 你好
36         fmt.Println("hello, world") // 你好

^G Help        ^O Write Out   ^W Where Is    ^K Cut         ^T Execute     ^C Location    M-U Undo       M-A Set Mark
^X Exit        ^R Read File   ^\ Replace     ^U Paste       ^J Justify     ^/ Go To Line  M-E Redo       M-6 Copy
@ 3930
  GNU nano 7.2                                            prog.go
 1 package main
 2
 3 import "fmt"
 4
 5 // main says hello.
 6 func main() {
 7         fmt.Println("hello, world") // 你好
 8         fmt.Println("hello, world") // 你好
 9         fmt.Println("hello, world") // 你好
10         fmt.Println("hello, world") // 你好
11         fmt.Println("hello, world") // 你好
12         fmt.Println("hello, world") // 你好
13         fmt.Println("hello, world") // 你好
14         fmt.Println("hello, world") // 你好
15         fmt.Println("hello, world") // 你好
16         fmt.Println("hello, world") // 你好
17         fmt.Println("hello, world") // 你好
18         fmt.Println("hello, world") // 你好
19         fmt.Println("hello, world") // 你好
20         fmt.Println("hello, world") // 你好
21         fmt.Println("hello, world") // 你好
22         fmt.Println("hello, world") // 你好
23         fmt.Println("hello, world") // 你好
24         fmt.Println("hello, world") // 你好
25         fmt.Println("hello, world") // 你好
26         fmt.Println("hello, world") // 你好
27         fmt.Println("hello, world") // 你好
28         fmt.Println("hello, world") // 你好
29         fmt.Println("hello, world") // 你好
30         fmt.Println("hello, world") // 你好
31         fmt.Println("hello, world") // 你好
32         fmt.Println("hello, world") // 你好
33         fmt.Println("hello, world") // 你好
34         fmt.Println("hello, world") // 你好
35         fmt.Println("hello, world") // 你好
36         fmt.Println("hello, world") // 你好
                                                  [ Nothing to undo ]
^G Help        ^O Write Out   ^W Where Is    ^K Cut         ^T Execute     ^C Location    M-U Undo       M-A Set Mark
^X Exit        ^R Read File   ^\ Replace     ^U Paste       ^J Justify     ^/ Go To Line  M-E Redo       M-6 Copy
@ 4012

[exited]






































