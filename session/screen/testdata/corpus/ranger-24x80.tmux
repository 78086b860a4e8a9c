# ranger-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 634
root@vm /tmp/TestRecordCorpusranger-24x802975134105/001/page.html
 001       page.html                                            2.26 K
           prog.go                                              1.97 K
           raw.out                                               157 B
           wide.txt                                             2.14 K


















-rw-r--r-- 1 root root 2.26K 2026-11-28 03:49    6.52K sum, 74.3G free  1/4  All
@ 837
root@vm /tmp/TestRecordCorpusranger-24x802975134105/001/prog.go
 001       page.html                                            2.26 K
           prog.go                                              1.97 K
           raw.out                                               157 B
           wide.txt                                             2.14 K


















-rw-r--r-- 1 root root 1.97K 2026-11-28 03:49    6.52K sum, 74.2G free  2/4  All
@ 1045
root@vm /tmp/TestRecordCorpusranger-24x802975134105/001/raw.out
 001       page.html                                            2.26 K
           prog.go                                              1.97 K
           raw.out                                               837 B
           wide.txt                                             2.14 K


















-rw-r--r-- 1 root root 837B 2026-11-28 03:49     6.52K sum, 74.2G free  3/4  All
@ 1119

[exited]






















