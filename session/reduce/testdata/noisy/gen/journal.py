# Synthesizes a day of journalctl output for a small web host: timer and
# session chatter, a kernel OOM kill, a failing unit and a disk error.
import random
random.seed(42)
out = []
t = 4*3600 + 12*60
def ts():
    global t
    t += random.randint(1, 40)
    h, m, s = t//3600 % 24, t//60 % 60, t % 60
    return f"Nov 22 {h:02d}:{m:02d}:{s:02d}"
host = "web-03"
pid = [1200]
def npid():
    pid[0] += random.randint(1, 30); return pid[0]
events = []
for i in range(700):
    k = random.random()
    if k < 0.22:
        s = random.randint(100, 999)
        out.append(f"{ts()} {host} systemd[1]: Started session-{s}.scope - Session {s} of User deploy.")
    elif k < 0.34:
        p = npid()
        out.append(f"{ts()} {host} CRON[{p}]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)")
    elif k < 0.44:
        p = npid()
        out.append(f"{ts()} {host} sshd[{p}]: Accepted publickey for deploy from 192.0.2.{random.randint(2,250)} port {random.randint(30000,65000)} ssh2: ED25519 SHA256:Qm9vZ2xlZ2Fsb3JlbWlwc3VtZG9sb3JzaXRhbWV0")
    elif k < 0.52:
        p = npid()
        out.append(f"{ts()} {host} sshd[{p}]: pam_unix(sshd:session): session opened for user deploy(uid=1001) by (uid=0)")
    elif k < 0.60:
        s = random.randint(100, 999)
        out.append(f"{ts()} {host} systemd[1]: session-{s}.scope: Deactivated successfully.")
    elif k < 0.70:
        out.append(f"{ts()} {host} nginx[{random.choice([2211,2212,2213])}]: 192.0.2.{random.randint(2,250)} - - \"GET /api/v1/items?page={random.randint(1,90)} HTTP/1.1\" 200 {random.randint(200,9000)}")
    elif k < 0.78:
        out.append(f"{ts()} {host} systemd[1]: Starting sysstat-collect.service - system activity accounting tool...")
        out.append(f"{ts()} {host} systemd[1]: sysstat-collect.service: Deactivated successfully.")
        out.append(f"{ts()} {host} systemd[1]: Finished sysstat-collect.service - system activity accounting tool.")
    elif k < 0.84:
        out.append(f"{ts()} {host} kernel: [UFW BLOCK] IN=eth0 OUT= MAC=52:54:00:12:34:56 SRC=198.51.100.{random.randint(2,250)} DST=203.0.113.10 LEN=44 TOS=0x00 PREC=0x00 TTL={random.randint(30,250)} ID={random.randint(1,65000)} PROTO=TCP SPT={random.randint(1000,65000)} DPT={random.choice([22,23,3389,8080])} WINDOW=1024 RES=0x00 SYN URGP=0")
    elif k < 0.90:
        out.append(f"{ts()} {host} systemd-timesyncd[512]: Contacted time server 203.0.113.{random.randint(2,250)}:123 (ntp.example.net).")
    elif k < 0.95:
        out.append(f"{ts()} {host} dockerd[890]: time=\"2026-11-22T04:{random.randint(10,59)}:{random.randint(10,59)}.{random.randint(100000,999999)}Z\" level=info msg=\"ignoring event\" container={random.getrandbits(64):016x} module=libcontainerd namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\"")
    else:
        out.append(f"{ts()} {host} systemd[1]: Reloading requested from client PID {npid()} ('systemctl') (unit session-{random.randint(100,999)}.scope)...")
        out.append(f"{ts()} {host} systemd[1]: Reloading finished in {random.randint(90,400)} ms.")
    if i == 170:
        out += [
            f"{ts()} {host} kernel: java invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
            f"{ts()} {host} kernel: Out of memory: Killed process 4242 (java) total-vm:8123456kB, anon-rss:3904512kB, file-rss:0kB, shmem-rss:0kB, UID:1001 pgtables:8120kB oom_score_adj:0",
            f"{ts()} {host} systemd[1]: reports-worker.service: A process of this unit has been killed by the OOM killer.",
        ]
    if i == 420:
        out += [
            f"{ts()} {host} systemd[1]: Starting app-api.service - Items API...",
            f"{ts()} {host} app-api[5120]: listen tcp 0.0.0.0:8080: bind: address already in use",
            f"{ts()} {host} systemd[1]: app-api.service: Main process exited, code=exited, status=1/FAILURE",
            f"{ts()} {host} systemd[1]: app-api.service: Failed with result 'exit-code'.",
            f"{ts()} {host} systemd[1]: Failed to start app-api.service - Items API.",
        ]
    if i == 610:
        out += [
            f"{ts()} {host} kernel: EXT4-fs error (device vdb1): ext4_find_entry:1682: inode #131073: comm rsync: reading directory lblock 0",
            f"{ts()} {host} kernel: Buffer I/O error on dev vdb1, logical block 524288, lost async page write",
        ]
open('journal.txt', 'w').write('\n'.join(out) + '\n')
