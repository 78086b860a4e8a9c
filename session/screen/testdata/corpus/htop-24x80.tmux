# htop-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 73
























@ 6477
htop 3.2.2 - (C) 2004-2019 Hisham Muhammad. (C) 2020-2023 htop dev team.
Released under the GNU GPLv2+. See 'man' page for more info.

CPU usage bar: [low/normal/kernel/guest                  used%]
Memory bar:    [used/buffers/shared/cache                     used/total]
Swap bar:      [used/cache                                    used/total]

Type and layout of header meters are configurable in the setup screen.

Process state: R: running; S: sleeping; t: traced/stopped; Z: zombie; D: disk sl
eep
       #: hide/show header meters          S-Tab: switch to previous screen tab
     Tab: switch to next screen tab        Space: tag process
  Arrows: scroll process list                  c: tag process and its children
  Digits: incremental PID search               U: untag all processes
    F3 /: incremental name search           F9 k: kill process/tagged processes
    F4 \: incremental name filtering        F7 ]: higher priority (root only)
    F5 t: tree view                         F8 [: lower priority (+ nice)
       p: toggle program path                  a: set CPU affinity
       m: toggle merged command                e: show process environment
       Z: pause/resume process updates         i: set IO priority
       u: show processes of a single user      l: list open files with lsof
       H: hide/show user process threads       x: list file locks of process
       K: hide/show kernel threads             s: trace syscalls with strace
@ 10142

    0[||||||||||||||||||||||||||100.0%] Tasks: 91, 208 thr, 59 kthr; 2 running
    1[||||||||||||||||||||||||||100.0%] Load average: 15.85 15.09 10.16
  Mem[||||||||||            777M/23.5G] Uptime: 00:25:04
  Swp[                           0K/0K]

  [Main] [I/O]
  PID USER       PRI  NI  VIRT   RES   SHR S  CPU%▽MEM%   TIME+  Command
28349 root        20   0  4920  2636  1840 R  22.6  0.0  2:02.14 bash /dev/fd/3
 2638 root        20   0  2952  1924  1800 R  21.1  0.0  0:57.20 script -qc bash
13077 root        20   0 2102M 79584 23412 S  19.5  0.3  0:13.03 /tmp/go-build37
13102 root        12  -8 53.9G  211M  175M S  19.5  0.9  0:10.53 /usr/lib/chromi
18669 root        20   0 1238M 24084  7688 R  16.5  0.1  0:00.16 /usr/local/go/p
18687 root        20   0 1470M 65008 37848 R  13.5  0.3  0:00.09 /usr/local/go/p
18678 root        20   0 1238M 19080  7628 R  12.0  0.1  0:00.08 /usr/local/go/p
18682 root        20   0 17588 13052  6260 R  12.0  0.1  0:00.08 /usr/bin/python
13481 root        20   0 1447G  146M  114M R  10.5  0.6  0:06.70 /usr/lib/chromi
18667 root        20   0 91768 21668 19716 R   9.0  0.1  0:00.10 node -e  ��cons
18675 root        20   0 1238M 24084  7688 R   7.5  0.1  0:00.07 /usr/local/go/p
13082 root        20   0 2102M 79584 23412 S   6.0  0.3  0:02.74 /tmp/go-build37
13567 root        12  -8 1447G  146M  114M S   6.0  0.6  0:02.57 /usr/lib/chromi
13630 root        20   0 2102M 79584 23412 S   6.0  0.3  0:03.06 /tmp/go-build37
13106 root        20   0 2102M 79584 23412 S   4.5  0.3  0:02.64 /tmp/go-build37
F1Help  F2Setup F3SearchF4FilterF5Tree  F6SortByF7Nice -F8Nice +F9Kill  F10Quit
@ 10229

    0[||||||||||||||||||||||||||100.0%] Tasks: 91, 208 thr, 59 kthr; 2 running
    1[||||||||||||||||||||||||||100.0%] Load average: 15.85 15.09 10.16
  Mem[||||||||||            777M/23.5G] Uptime: 00:25:04
  Swp[                           0K/0K]

  [Main] [I/O]
  PID△USER       PRI  NI  VIRT   RES   SHR S  CPU% MEM%   TIME+  Command
28349 root        20   0  4920  2636  1840 R  22.6  0.0  2:02.14 bash /dev/fd/3
 2638 root        20   0  2952  1924  1800 R  21.1  0.0  0:57.20 script -qc bash
13077 root        20   0 2102M 79584 23412 S  19.5  0.3  0:13.03 /tmp/go-build37
13102 root        12  -8 53.9G  211M  175M S  19.5  0.9  0:10.53 /usr/lib/chromi
18669 root        20   0 1238M 24084  7688 R  16.5  0.1  0:00.16 /usr/local/go/p
18687 root        20   0 1470M 65008 37848 R  13.5  0.3  0:00.09 /usr/local/go/p
18678 root        20   0 1238M 19080  7628 R  12.0  0.1  0:00.08 /usr/local/go/p
18682 root        20   0 17588 13052  6260 R  12.0  0.1  0:00.08 /usr/bin/python
13481 root        20   0 1447G  146M  114M R  10.5  0.6  0:06.70 /usr/lib/chromi
18667 root        20   0 91768 21668 19716 R   9.0  0.1  0:00.10 node -e  ��cons
18675 root        20   0 1238M 24084  7688 R   7.5  0.1  0:00.07 /usr/local/go/p
13082 root        20   0 2102M 79584 23412 S   6.0  0.3  0:02.74 /tmp/go-build37
13567 root        12  -8 1447G  146M  114M S   6.0  0.6  0:02.57 /usr/lib/chromi
13630 root        20   0 2102M 79584 23412 S   6.0  0.3  0:03.06 /tmp/go-build37
13106 root        20   0 2102M 79584 23412 S   4.5  0.3  0:02.64 /tmp/go-build37
F1Help  F2Setup F3SearchF4FilterF5List  F6SortByF7Nice -F8Nice +F9Kill  F10Quit
@ 10300

[exited]






















