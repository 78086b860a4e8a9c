# top-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 3217
top - 04:10:35 up  1:18,  0 user,  load average: 10.17, 13.79, 17.24
Tasks: 159 total,   8 running, 151 sleeping,   0 stopped,   0 zombie
%Cpu(s):  0.0 us,  0.0 sy,  0.0 ni,100.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st
MiB Mem :  24105.6 total,  18475.7 free,    829.8 used,   5124.6 buff/cache
MiB Swap:      0.0 total,      0.0 free,      0.0 used.  23275.8 avail Mem

  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
28195 root      20   0 1526064 185372 135152 R  53.3   0.8   0:00.51 link
28169 root      20   0 1185552  79076  46168 R  40.0   0.3   0:00.76 npm exec +
 2638 root      20   0    2952   1924   1800 R  33.3   0.0   7:17.26 script
 1621 root      20   0    2952   1964   1836 R  26.7   0.0   5:30.98 script
26188 root      20   0    2592   1720   1616 R  20.0   0.0   0:04.41 sh
23402 root      20   0    2592   1672   1568 R  13.3   0.0   0:14.56 sh
26186 root      20   0    2592   1716   1616 R  13.3   0.0   0:04.39 sh
26431 root      20   0 2116444  77636  11068 S   6.7   0.3   0:01.74 session.t+
28255 root      20   0    9060   5200   3076 R   6.7   0.0   0:00.01 top
28256 root      20   0    5648   4868   3228 S   6.7   0.0   0:00.01 bash
    1 root      20   0   52460  17740   6464 S   0.0   0.1   0:50.24 process_a+
    2 root      20   0       0      0      0 S   0.0   0.0   0:00.01 kthreadd
    3 root      20   0       0      0      0 S   0.0   0.0   0:00.00 pool_work+
    4 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
    5 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
    6 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
    7 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R+
