# top-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 6250
top - 03:17:18 up 25 min,  0 user,  load average: 15.85, 15.09, 10.16
Tasks: 147 total,   8 running, 136 sleeping,   0 stopped,   3 zombie
%Cpu(s): 60.0 us, 40.0 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st
MiB Mem :  24105.6 total,  19255.8 free,   1335.5 used,   3830.7 buff/cache
MiB Swap:      0.0 total,      0.0 free,      0.0 used.  22770.1 avail Mem

  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
 2638 root      20   0    2952   1924   1800 R  23.8   0.0   0:56.66 script
13077 root      20   0 2152000  79204  23412 S  23.8   0.3   0:12.55 ttymux.test
28349 root      20   0    4920   2636   1840 R  23.8   0.0   2:01.58 bash
17251 root      20   0 1558380 270908  24300 R  19.0   1.1   0:06.86 compile
13102 root      12  -8   52.6g 216228 179736 S  14.3   0.9   0:10.20 chromium
18491 root      20   0 1350744  62828  19580 R  14.3   0.3   0:00.32 compile
12627 root      20   0 2214916 190568  23420 S   9.5   0.8   0:11.41 ttymux.test
13481 root      20   0 1448.0g 150088 117696 S   9.5   0.6   0:06.50 chromium
18567 root      20   0   91768  21620  19720 R   9.5   0.1   0:00.06 node
18572 root      20   0    6148   5296   3148 S   4.8   0.0   0:00.03 bash
18611 root      20   0    8680   4508   2772 R   4.8   0.0   0:00.01 ps
    1 root      20   0   55292  21192   6464 S   0.0   0.1   0:13.25 process_api
    2 root      20   0       0      0      0 S   0.0   0.0   0:00.01 kthreadd
    3 root      20   0       0      0      0 S   0.0   0.0   0:00.00 pool_workqueue_release
    4 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R-rcu_gp
    5 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R-sync_wq
    6 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R-kvfree_rcu_reclaim
    7 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R-slub_flushwq
    8 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R-netns
    9 root      20   0       0      0      0 I   0.0   0.0   0:00.00 kworker/0:0-virtio_vsock
   10 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/0:0H-events_highpri
   12 root      20   0       0      0      0 I   0.0   0.0   0:02.09 kworker/u8:0-events_unbound
   13 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/R-mm_percpu_wq
   14 root      20   0       0      0      0 S   0.0   0.0   0:00.45 ksoftirqd/0
   15 root      20   0       0      0      0 I   0.0   0.0   0:03.01 rcu_preempt
   16 root      20   0       0      0      0 S   0.0   0.0   0:00.00 rcu_exp_par_gp_kthread_worker/0
   17 root      20   0       0      0      0 S   0.0   0.0   0:00.00 rcu_exp_gp_kthread_worker
   18 root      rt   0       0      0      0 S   0.0   0.0   0:00.05 migration/0
   19 root      20   0       0      0      0 S   0.0   0.0   0:00.00 cpuhp/0
   20 root      20   0       0      0      0 S   0.0   0.0   0:00.00 cpuhp/1
   21 root      rt   0       0      0      0 S   0.0   0.0   0:00.39 migration/1
   22 root      20   0       0      0      0 S   0.0   0.0   0:00.59 ksoftirqd/1
   24 root       0 -20       0      0      0 I   0.0   0.0   0:00.00 kworker/1:0H-events_highpri
