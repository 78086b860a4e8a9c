# vim-tiny-wide-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 1757
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨<200d>👩<200d>👧 x, flag 🇫 🇷  x
soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy中文
日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
"wide.txt" 65L, 2191B
@ 1768
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨<200d>👩<200d>👧 x, flag 🇫 🇷  x
soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy中文
日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
"wide.txt" 65L, 2191B
@ 1917
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨<200d>👩<200d>👧 x, flag 🇫 🇷  x
soft­hyphen, é combining, 中文字符❤️中 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy中文
日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
line of text for scrolling
-- INSERT --
@ 2073

[exited]






































