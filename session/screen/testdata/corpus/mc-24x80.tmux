# mc-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 3649
  Left     File     Command     Options     Right
┌<─ ~ ────────────────────────────.[^]>┐┌<─ ~ ────────────────────────────.[^]>┐
│.n     Name      │ Size  │Modify time ││.n     Name      │ Size  │Modify time │
│/..              │UP--DIR│Nov 28 04:10││/..              │UP--DIR│Nov 28 04:10│
│/.cache          │   4096│Nov 28 04:10││/.cache          │   4096│Nov 28 04:10│
│/.config         │   4096│Nov 28 04:10││/.config         │   4096│Nov 28 04:10│
│/.local          │   4096│Nov 28 04:10││/.local          │   4096│Nov 28 04:10│
│ page.html       │   2311│Nov 28 04:10││ page.html       │   2311│Nov 28 04:10│
│ prog.go         │   2014│Nov 28 04:10││ prog.go         │   2014│Nov 28 04:10│
│ raw.out         │     87│Nov 28 04:10││ raw.out         │     87│Nov 28 04:10│
│ wide.txt        │   2191│Nov 28 04:10││ wide.txt        │   2191│Nov 28 04:10│
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
├──────────────────────────────────────┤├──────────────────────────────────────┤
│UP--DIR                               ││UP--DIR                               │
└────────────────── 234G / 252G (92%) ─┘└────────────────── 234G / 252G (92%) ─┘
Hint: Tab changes your current panel.
#
 1Help   2Menu   3View   4Edit   5Copy   6RenMov 7Mkdir  8Delete 9PullDn10Quit
@ 3876
  Left     File     Command     Options     Right
┌<─ ~ ────────────────────────────.[^]>┐┌<─ ~ ────────────────────────────.[^]>┐
│.n     Name      │ Size  │Modify time ││.n     Name      │ Size  │Modify time │
│/..              │UP--DIR│Nov 28 04:10││/..              │UP--DIR│Nov 28 04:10│
│/.cache          │   4096│Nov 28 04:10││/.cache          │   4096│Nov 28 04:10│
│/.config         │   4096│Nov 28 04:10││/.config         │   4096│Nov 28 04:10│
│/.local          │   4096│Nov 28 04:10││/.local          │   4096│Nov 28 04:10│
│ page.html       │   2311│Nov 28 04:10││ page.html       │   2311│Nov 28 04:10│
│ prog.go         │   2014│Nov 28 04:10││ prog.go         │   2014│Nov 28 04:10│
│ raw.out         │     87│Nov 28 04:10││ raw.out         │     87│Nov 28 04:10│
│ wide.txt        │   2191│Nov 28 04:10││ wide.txt        │   2191│Nov 28 04:10│
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
├──────────────────────────────────────┤├──────────────────────────────────────┤
│UP--DIR                               ││UP--DIR                               │
└────────────────── 234G / 252G (92%) ─┘└────────────────── 234G / 252G (92%) ─┘
Hint: Tab changes your current panel.
#
 1Help   2Menu   3View   4Edit   5Copy   6RenMov 7Mkdir  8Delete 9PullDn10Quit
@ 4047
  Left     File     Command     Options     Right
┌<─ ~ ────────────────────────────.[^]>┐┌<─ ~ ────────────────────────────.[^]>┐
│.n     Name      │ Size  │Modify time ││.n     Name      │ Size  │Modify time │
│/..              │UP--DIR│Nov 28 04:10││/..              │UP--DIR│Nov 28 04:10│
│/.cache          │   4096│Nov 28 04:10││/.cache          │   4096│Nov 28 04:10│
│/.config         │   4096│Nov 28 04:10││/.config         │   4096│Nov 28 04:10│
│/.local          │   4096│Nov 28 04:10││/.local          │   4096│Nov 28 04:10│
│ page.html       │   2311│Nov 28 04:10││ page.html       │   2311│Nov 28 04:10│
│ prog.go         │   2014│Nov 28 04:10││ prog.go         │   2014│Nov 28 04:10│
│ raw.out         │     87│Nov 28 04:10││ raw.out         │     87│Nov 28 04:10│
│ wide.txt        │   2191│Nov 28 04:10││ wide.txt        │   2191│Nov 28 04:10│
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
│                 │       │            ││                 │       │            │
├──────────────────────────────────────┤├──────────────────────────────────────┤
│UP--DIR                               ││UP--DIR                               │
└────────────────── 234G / 252G (92%) ─┘└────────────────── 234G / 252G (92%) ─┘
Hint: Tab changes your current panel.
#
 1Help   2Menu   3View   4Edit   5Copy   6RenMov 7Mkdir  8Delete 9PullDn10Quit
@ 4267


[exited]





















