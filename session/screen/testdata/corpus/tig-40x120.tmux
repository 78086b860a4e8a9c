# tig-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 479
2026-11-28 03:48 +0000 Unknown o Unstaged changes
2026-11-28 03:48 +0000 A       o [master] second
2026-11-28 03:48 +0000 A       I first: 中文 ❤️ wide



































[main] Unstaged changes                                                                                             100%

@ 1155
2026-11-28 03:48 +0000 Unknown o Unstaged changes
2026-11-28 03:48 +0000 A       o [master] second
2026-11-28 03:48 +0000 A       I first: 中文 ❤️ wide









[main] Unstaged changes                                                                                             100%
 raw.out | 1 +
 1 file changed, 1 insertion(+)

diff --git a/raw.out b/raw.out
index e69de29..74c9eb8 100644
--- a/raw.out
+++ b/raw.out
@@ -0,0 +1 @@
+ [?1049h [22;0;0t [1;40r (B [m [4l [?7h [?25l [39;49m [?1h = [39;49m (B [m [H [2J (B [0;1m [37m [42m2026-11-28 03:48 +0
\ No newline at end of file















[stage] Press '<Enter>' to jump to file diff - line 1 of 10                                                         100%

@ 1357
2026-11-28 03:48 +0000 Unknown o Unstaged changes
2026-11-28 03:48 +0000 A       o [master] second
2026-11-28 03:48 +0000 A       I first: 中文 ❤️ wide









[main] Unstaged changes                                                                                             100%
 raw.out | 1 +
 1 file changed, 1 insertion(+)

diff --git a/raw.out b/raw.out
index e69de29..74c9eb8 100644
--- a/raw.out
+++ b/raw.out
@@ -0,0 +1 @@
+ [?1049h [22;0;0t [1;40r (B [m [4l [?7h [?25l [39;49m [?1h = [39;49m (B [m [H [2J (B [0;1m [37m [42m2026-11-28 03:48 +0
\ No newline at end of file















[stage] Unstaged changes - line 2 of 10                                                                             100%

@ 1516
2026-11-28 03:48 +0000 Unknown o Unstaged changes
2026-11-28 03:48 +0000 A       o [master] second
2026-11-28 03:48 +0000 A       I first: 中文 ❤️ wide



































[main] Unstaged changes                                                                                             100%

@ 1579

[exited]






































