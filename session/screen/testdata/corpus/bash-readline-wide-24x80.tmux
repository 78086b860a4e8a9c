# bash-readline-wide-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 10
$























@ 129
$ echo 中文字符 wide ❤️ text that runs past the right margin of the screen 日本語
 and goes on and on 長い行






















@ 139
$ echo 中文字符 wide ❤️ text that runs past the right margin of the screen 日本語
 and goes on and on 長い行






















@ 154
$ echo 中文字符 wide ❤️ text that runs past the right margin of the screen 日本語
 and goes on and on 長い行






















@ 311
$ echo 插入中文字符 wide ❤️ text that runs past the right margin of the screen 日
本語 and goes on and on 長い行






















@ 404
$ echo 插入中文字符 wide ❤️ text that runs past the right margin of the screen 日
本語 and goes on and on 長い行






















@ 414
$ echo 插入中文字符 wide ❤️ text that runs past the right margin of the screen 日
本語 and goes on and on 長






















@ 551
$ echo 插入中文字符 wide ❤️ text that runs past the right margin of the screen 日
本語 and goes on and on 長
插入中文字符 wide ❤️ text that runs past the right margin of the screen 日本語 an
d goes on and on 長
$



















