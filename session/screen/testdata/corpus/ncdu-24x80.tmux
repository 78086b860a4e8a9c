# ncdu-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 1690
ncdu 1.18 ~ Use the arrow keys to navigate, press ? for help
--- /tmp/TestRecordCorpusncdu-24x80111832823/001 -------------------------------
    4.0 KiB [###########]  page.html
    4.0 KiB [###########]  wide.txt
    4.0 KiB [###########]  prog.go
    0.0   B [           ]  raw.out

















 Total disk usage:  16.0 KiB  Apparent size:  10.4 KiB  Items: 4
@ 1835
ncdu 1.18 ~ Use the arrow keys to navigate, press ? for help
--- /tmp/TestRecordCorpusncdu-24x80111832823/001 -------------------------------
    4.0 KiB [###########]  page.html
    4.0 KiB [###########]  wide.txt
    4.0 KiB [###########]  prog.go
    0.0   B [           ]  raw.out

















 Total disk usage:  16.0 KiB  Apparent size:  10.4 KiB  Items: 4
@ 3431
ncdu 1.18 ~ Use the arrow keys to navigate, press ? for help
--- /tmp/TestRecordCorpusncdu-24x80111832823/001 -------------------------------
    4.0 KiB [###########]  page.html
    4.0 KiB [###########]  wide.txt
    4.0 KiB [###########]  prog.go
    0.0   ┌───ncdu help─────────────────1:Keys───2:Format───3:About──┐
          │                                                          │
          │       up, k  Move cursor up                              │
          │     down, j  Move cursor down                            │
          │ right/enter  Open selected directory                     │
          │  left, <, h  Open parent directory                       │
          │           n  Sort by name (ascending/descending)         │
          │           s  Sort by size (ascending/descending)         │
          │           C  Sort by items (ascending/descending)        │
          │           M  Sort by mtime (-e flag)                     │
          │           d  Delete selected file or directory           │
          │           t  Toggle dirs before files when sorting       │
          │                        -- more --                        │
          │                                         Press q to close │
          └──────────────────────────────────────────────────────────┘



 Total disk usage:  16.0 KiB  Apparent size:  10.4 KiB  Items: 4
@ 3585
ncdu 1.18 ~ Use the arrow keys to navigate, press ? for help
--- /tmp/TestRecordCorpusncdu-24x80111832823/001 -------------------------------
    4.0 KiB [###########]  page.html
    4.0 KiB [###########]  wide.txt
    4.0 KiB [###########]  prog.go
    0.0   B [           ]  raw.out

















 Total disk usage:  16.0 KiB  Apparent size:  10.4 KiB  Items: 4
@ 3651

[exited]






















