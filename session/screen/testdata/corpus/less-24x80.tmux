# less-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 1047
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨‍👩‍👧 x, flag 🇫🇷 x
soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
中文
日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長い行長い
行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行
長い行長い行長い行長い行長い行長い行長い行長い行長い行
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
wide.txt
@ 1699
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
:
@ 3583
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
:
@ 4850
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨‍👩‍👧 x, flag 🇫🇷 x
soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
中文
日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長い行長い
行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行
長い行長い行長い行長い行長い行長い行長い行長い行長い行
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
:
@ 4888

[exited]






















