top - 02:55:17 up 40 min,  0 user,  load average: 23.80, 19.14, 12.35
Tasks: 123 total,   6 running, 117 sleeping,   0 stopped,   0 zombie
%Cpu(s): 72.6 us, 27.4 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st
MiB Mem :  24105.1 total,  21043.4 free,    982.4 used,   2387.1 buff/cache
MiB Swap:      0.0 total,      0.0 free,      0.0 used.  23122.7 avail Mem

  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
28074 root      20   0 1422412 130076  21588 R  83.2   0.5   0:01.53 compile
27663 root      20   0 1423792 162336  22808 R  52.5   0.7   0:03.67 compile
14952 root      20   0 2274440 134116  11120 S   5.0   0.5   0:05.79 session.t+
28120 root      20   0    4092   3116   2728 R   4.0   0.0   0:00.09 bash
28161 root      20   0    3940   2988   2704 S   3.0   0.0   0:00.03 bash
    1 root      10 -10   45804  15060   6444 S   1.0   0.1   0:19.52 process_a+
16177 root      20   0    5548   1160   1040 S   1.0   0.0   0:02.13 memfd:sea+
27675 root      20   0    9060   5188   3068 R   1.0   0.0   0:00.09 top
28168 root      20   0    4624   3704   3164 S   1.0   0.0   0:00.01 bash
    2 root      20   0       0      0      0 S   0.0   0.0   0:00.00 kthreadd
    3 root      20   0       0      0      0 S   0.0   0.0   0:00.00 pool_work+
    4 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
    5 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
    6 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
    7 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
    8 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
   10 root       0 -20       0      0      0 I   0.0   0.0   0:00.09 kworker/0+
