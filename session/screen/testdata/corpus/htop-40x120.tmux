# htop-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 7924

    0[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Tasks: 69, 60 thr, 61 kthr; 2 running
    1[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Load average: 10.60 14.23 12.11
  Mem[|||||||||||||                             330M/23.5G] Uptime: 00:33:02
  Swp[                                               0K/0K]

  [Main] [I/O]
  PID USER       PRI  NI  VIRT   RES   SHR S  CPU%▽MEM%   TIME+  Command
 2638 root        20   0  2952  1924  1800 R  50.0  0.0  2:11.11 script -qc bash --norc --noprofile -i /dev/null
11555 root        20   0 1489M 56568 30772 S  50.0  0.2  0:00.05 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
11557 root        20   0 1489M 56568 30772 R  50.0  0.2  0:00.01 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
    1 root        20   0 55520 21484  6464 S   0.0  0.1  0:18.25 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   59 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.15 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   60 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.19 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   61 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   62 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   63 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   64 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   65 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   68 root        20   0 55520 21484  6464 S   0.0  0.1  0:01.60 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   70 root        20   0 55520 21484  6464 S   0.0  0.1  0:01.40 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   75 root        20   0 55520 21484  6464 S   0.0  0.1  0:13.61 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   76 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   79 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.01 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   89 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.04 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
  572 root        20   0  5548  1104   984 S   0.0  0.0  0:00.00 line_io_tools/binary_backend --uid 0 --gid 0 --startup-
  573 root        20   0  5548  1104   984 S   0.0  0.0  0:00.00 line_io_tools/binary_backend --uid 0 --gid 0 --startup-
  583 root        20   0  5244  2984  1852 S   0.0  0.0  0:00.00 bash /dev/fd/3
  584 root        20   0  4728  2216  1596 S   0.0  0.0  0:00.00 bash /dev/fd/3
 1105 root        20   0  1392  1100   996 S   0.0  0.0  0:01.26 line_io_tools/binary_backend --uid 0 --gid 0 --startup-
 1106 root        20   0  5232  4232  3040 S   0.0  0.0  0:00.54 bash /dev/fd/3
 1621 root        20   0  2952  1964  1836 R   0.0  0.0  0:27.73 script -qc bash -c "$(cat /tmp/boot.sh)" /dev/null
 1622 root        20   0  3708  1716  1592 S   0.0  0.0  0:00.00 cat -v
 1623 root        20   0  2928  1712  1592 S   0.0  0.0  0:00.00 head -3
 1626 root        20   0  5664  4640  3048 S   0.0  0.0  0:00.01 /bin/bash --rcfile /tmp/ttymux.1626/rc -i
 2641 root        20   0  4624  3640  3100 S   0.0  0.0  0:00.00 bash --norc --noprofile -i
 5564 root        20   0  5888  3732  2832 S   0.0  0.0  0:00.00 tmux new-session -d -s work
 5565 root        20   0  5652  4868  3228 S   0.0  0.0  0:00.00 -bash
 5588 root        20   0  5888  3964  3060 S   0.0  0.0  0:00.00 tmux new-session -d -s work
F1Help  F2Setup F3SearchF4FilterF5Tree  F6SortByF7Nice -F8Nice +F9Kill  F10Quit
@ 11642

    0[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Tasks: 70, 63 thr, 61 kthr; 2 running
    1[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Load average: 10.60 14.23 12.11
  Mem[|||||||||||||                             375M/23.5G] Uptime: 00:33:02
  Swp[                                               0K/0K]

  [Setup]
Categories       Display options
Display options  For current screen tab: Main
Header layout    [ ]    Tree view
Meters           [ ]    - Tree view is always sorted by PID (htop 2 behavior)
Screens          [ ]    - Tree view is collapsed by default
Colors           Global options:
                 [x]    Show tabs for screens
                 [ ]    Shadow other users' processes
                 [x]    Hide kernel threads
                 [ ]    Hide userland process threads
                 [ ]    Hide processes running in containers
                 [x]    Display threads in a different color
                 [ ]    Show custom thread names
                 [x]    Show program path
                 [ ]    Highlight program "basename"
                 [x]    Highlight out-dated/removed programs (red) / libraries (yellow)
                 [ ]    Shadow distribution path prefixes
                 [ ]    Merge exe, comm and cmdline in Command
                 [x]    - Try to find comm in cmdline (when Command is merged)
                 [x]    - Try to strip exe from cmdline (when Command is merged)
                 [x]    Highlight large numbers in memory counters
                 [x]    Leave a margin around header
                 [ ]    Detailed CPU time (System/IO-Wait/Hard-IRQ/Soft-IRQ/Steal/Guest)
                 [ ]    Count CPUs from 1 instead of 0
                 [ ]    Update process names on every refresh
                 [ ]    Add guest time in CPU meter percentage
                 [x]    Also show CPU percentage numerically
                 [ ]    Also show CPU frequency
                 [ ]    Also show CPU temperature (requires libsensors)
                 [ ]    - Show temperature in degree Fahrenheit instead of Celsius
                 [x]    Enable the mouse
                 [1.0]  Update interval (in seconds)
F1      F2      F3      F4      F5      F6      F7      F8      F9      F10Done
@ 12347

    0[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Tasks: 70, 63 thr, 61 kthr; 2 running
    1[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Load average: 10.60 14.23 12.11
  Mem[|||||||||||||                             375M/23.5G] Uptime: 00:33:02
  Swp[                                               0K/0K]

  [Setup]
Categories       Header Layout
Display options  [x]    2 columns - 50/50 (default)
Header layout    [ ]    2 columns - 33/67
Meters           [ ]    2 columns - 67/33
Screens          [ ]    3 columns - 33/34/33
Colors           [ ]    3 columns - 25/25/50
                 [ ]    3 columns - 25/50/25
                 [ ]    3 columns - 50/25/25
                 [ ]    3 columns - 40/20/40
                 [ ]    4 columns - 25/25/25/25






















F1      F2      F3      F4      F5      F6      F7      F8      F9      F10Done
@ 19728

    0[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Tasks: 69, 63 thr, 61 kthr; 2 running
    1[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Load average: 10.60 14.23 12.11
  Mem[|||||||||||||                             463M/23.5G] Uptime: 00:33:03
  Swp[                                               0K/0K]

  [Main] [I/O]
  PID USER       PRI  NI  VIRT   RES   SHR S  CPU%▽MEM%   TIME+  Command
11579 root        20   0 1325M  111M 18696 S  73.3  0.5  0:00.70 /usr/local/go/pkg/tool/linux_amd64/compile -o /tmp/go-b
11555 root        20   0 1490M  241M  179M S  55.5  1.0  0:00.83 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
 1621 root        20   0  2952  1964  1836 R  38.7  0.0  0:28.20 script -qc bash -c "$(cat /tmp/boot.sh)" /dev/null
11583 root        20   0 1325M  111M 18696 R  35.6  0.5  0:00.34 /usr/local/go/pkg/tool/linux_amd64/compile -o /tmp/go-b
11558 root        20   0 1490M  241M  179M R  29.3  1.0  0:00.29 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
11557 root        20   0 1490M  241M  179M R  27.2  1.0  0:00.35 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
 2638 root        20   0  2952  1924  1800 R  23.0  0.0  2:11.51 script -qc bash --norc --noprofile -i /dev/null
11582 root        20   0 1325M  111M 18696 R  19.9  0.5  0:00.19 /usr/local/go/pkg/tool/linux_amd64/compile -o /tmp/go-b
11538 root        20   0 1246M 38264 13944 S   5.2  0.2  0:00.53 go test -count=1 -run TestHTTP ./cmd/ttymux
11541 root        20   0 1246M 38264 13944 S   3.1  0.2  0:00.10 go test -count=1 -run TestHTTP ./cmd/ttymux
   75 root        20   0 55520 21484  6464 S   2.1  0.1  0:13.63 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
    1 root        20   0 55520 21484  6464 S   1.0  0.1  0:18.26 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
11457 root        20   0 1522M  6744  5136 S   1.0  0.0  0:00.02 /tmp/go-build3773622684/b001/screen.test -test.panicone
11540 root        20   0 1246M 38264 13944 S   1.0  0.2  0:00.04 go test -count=1 -run TestHTTP ./cmd/ttymux
11546 root        20   0  5608  4468  3272 R   1.0  0.0  0:00.04 htop -d 10
11556 root        20   0 1490M  241M  179M S   1.0  1.0  0:00.01 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
   59 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.15 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   60 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.19 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   61 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   62 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   63 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   64 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   65 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   68 root        20   0 55520 21484  6464 S   0.0  0.1  0:01.60 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   70 root        20   0 55520 21484  6464 S   0.0  0.1  0:01.40 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   76 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   79 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.01 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   89 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.04 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
  572 root        20   0  5548  1104   984 S   0.0  0.0  0:00.00 line_io_tools/binary_backend --uid 0 --gid 0 --startup-
  573 root        20   0  5548  1104   984 S   0.0  0.0  0:00.00 line_io_tools/binary_backend --uid 0 --gid 0 --startup-
  583 root        20   0  5244  2984  1852 S   0.0  0.0  0:00.00 bash /dev/fd/3
F1Help  F2Setup F3SearchF4FilterF5Tree  F6SortByF7Nice -F8Nice +F9Kill  F10Quit
@ 20401

    0[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Tasks: 69, 63 thr, 61 kthr; 2 running
    1[||||||||||||||||||||||||||||||||||||||||||||||100.0%] Load average: 10.60 14.23 12.11
  Mem[|||||||||||||                             463M/23.5G] Uptime: 00:33:03
  Swp[                                               0K/0K]

  [Main] [I/O]
  PID USER       PRI  NI  VIRT   RES   SHR S  CPU%▽MEM%   TIME+  Command
11579 root        20   0 1325M  111M 18696 S  73.3  0.5  0:00.70 /usr/local/go/pkg/tool/linux_amd64/compile -o /tmp/go-b
11555 root        20   0 1490M  241M  179M S  55.5  1.0  0:00.83 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
 1621 root        20   0  2952  1964  1836 R  38.7  0.0  0:28.20 script -qc bash -c "$(cat /tmp/boot.sh)" /dev/null
11583 root        20   0 1325M  111M 18696 R  35.6  0.5  0:00.34 /usr/local/go/pkg/tool/linux_amd64/compile -o /tmp/go-b
11558 root        20   0 1490M  241M  179M R  29.3  1.0  0:00.29 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
11557 root        20   0 1490M  241M  179M R  27.2  1.0  0:00.35 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
 2638 root        20   0  2952  1924  1800 R  23.0  0.0  2:11.51 script -qc bash --norc --noprofile -i /dev/null
11582 root        20   0 1325M  111M 18696 R  19.9  0.5  0:00.19 /usr/local/go/pkg/tool/linux_amd64/compile -o /tmp/go-b
11538 root        20   0 1246M 38264 13944 S   5.2  0.2  0:00.53 go test -count=1 -run TestHTTP ./cmd/ttymux
11541 root        20   0 1246M 38264 13944 S   3.1  0.2  0:00.10 go test -count=1 -run TestHTTP ./cmd/ttymux
   75 root        20   0 55520 21484  6464 S   2.1  0.1  0:13.63 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
    1 root        20   0 55520 21484  6464 S   1.0  0.1  0:18.26 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
11457 root        20   0 1522M  6744  5136 S   1.0  0.0  0:00.02 /tmp/go-build3773622684/b001/screen.test -test.panicone
11540 root        20   0 1246M 38264 13944 S   1.0  0.2  0:00.04 go test -count=1 -run TestHTTP ./cmd/ttymux
11546 root        20   0  5608  4468  3272 R   1.0  0.0  0:00.04 htop -d 10
11556 root        20   0 1490M  241M  179M S   1.0  1.0  0:00.01 /usr/local/go/pkg/tool/linux_amd64/link -o /tmp/go-buil
   59 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.15 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   60 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.19 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   61 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   62 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   63 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   64 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   65 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   68 root        20   0 55520 21484  6464 S   0.0  0.1  0:01.60 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   70 root        20   0 55520 21484  6464 S   0.0  0.1  0:01.40 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   76 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.00 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   79 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.01 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
   89 root        20   0 55520 21484  6464 S   0.0  0.1  0:00.04 /process_api --firecracker-init --addr 0.0.0.0:2024 --m
  572 root        20   0  5548  1104   984 S   0.0  0.0  0:00.00 line_io_tools/binary_backend --uid 0 --gid 0 --startup-
  573 root        20   0  5548  1104   984 S   0.0  0.0  0:00.00 line_io_tools/binary_backend --uid 0 --gid 0 --startup-
  583 root        20   0  5244  2984  1852 S   0.0  0.0  0:00.00 bash /dev/fd/3
F1Help  F2Setup F3SearchF4FilterF5Tree  F6SortByF7Nice -F8Nice +F9Kill  F10Quit
@ 20472

[exited]






































