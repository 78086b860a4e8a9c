# vim-tiny-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 1381
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨<200d>👩<200d>👧 x, flag 🇫 🇷  x
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
"wide.txt" 65L, 2191B
@ 2938
      1 Wide characters and emoji, laid out by wcwidth:
      2 ❤️ ☺️ ✔️ end
      3 keycap 1️⃣ x, thumbs 👍🏽 x, family 👨<200d>👩<200d>👧 x, flag 🇫 🇷  x
      4 soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyy
        yyyyyyyy中文
      5 日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長
        い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長
        い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行
      6 line of text for scrolling
      7 line of text for scrolling
      8 line of text for scrolling
      9 line of text for scrolling
     10 line of text for scrolling
     11 line of text for scrolling
     12 line of text for scrolling
     13 line of text for scrolling
     14 line of text for scrolling
     15 line of text for scrolling
     16 line of text for scrolling
     17 line of text for scrolling
     18 line of text for scrolling
     19 line of text for scrolling
     20 line of text for scrolling
:set nu
@ 3569
     43 line of text for scrolling
     44 line of text for scrolling
     45 line of text for scrolling
     46 line of text for scrolling
     47 line of text for scrolling
     48 line of text for scrolling
     49 line of text for scrolling
     50 line of text for scrolling
     51 line of text for scrolling
     52 line of text for scrolling
     53 line of text for scrolling
     54 line of text for scrolling
     55 line of text for scrolling
     56 line of text for scrolling
     57 line of text for scrolling
     58 line of text for scrolling
     59 line of text for scrolling
     60 line of text for scrolling
     61 line of text for scrolling
     62 line of text for scrolling
     63 line of text for scrolling
     64 line of text for scrolling
     65 line of text for scrolling
:set nu
@ 4719
      1 Wide characters and emoji, laid out by wcwidth:
      2 ❤️ ☺️ ✔️ end
      3 keycap 1️⃣ x, thumbs 👍🏽 x, family 👨<200d>👩<200d>👧 x, flag 🇫 🇷  x
      4 soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyy
        yyyyyyyy中文 more
      5 日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長
        い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長
        い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行長い行
      6 line of text for scrolling
      7 line of text for scrolling
      8 line of text for scrolling
      9 line of text for scrolling
     10 line of text for scrolling
     11 line of text for scrolling
     12 line of text for scrolling
     13 line of text for scrolling
     14 line of text for scrolling
     15 line of text for scrolling
     16 line of text for scrolling
     17 line of text for scrolling
     18 line of text for scrolling
     19 line of text for scrolling
     20 line of text for scrolling
-- INSERT --
@ 4875

[exited]






















