# nano-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 1529
  GNU nano 7.2                        wide.txt
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨‍👩‍👧 x, flag 🇫🇷 x
soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyy>
日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長い行長[>
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
                               [ Read 65 lines ]
^G Help      ^O Write Out ^W Where Is  ^K Cut       ^T Execute   ^C Location
^X Exit      ^R Read File ^\ Replace   ^U Paste     ^J Justify   ^/ Go To Line
@ 1554
  GNU nano 7.2                        wide.txt
Wide characters and emoji, laid out by wcwidth:
❤️ ☺️ ✔️ end
keycap 1️⃣ x, thumbs 👍🏽 x, family 👨‍👩‍👧 x, flag 🇫🇷 x
soft­hyphen, é combining, 中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyy>
日本語のテキストがここにあります。長い行長い行長い行長い行長い行長い行長い行長[>
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
                               [ Read 65 lines ]
^G Help      ^O Write Out ^W Where Is  ^K Cut       ^T Execute   ^C Location
^X Exit      ^R Read File ^\ Replace   ^U Paste     ^J Justify   ^/ Go To Line
@ 1739
  GNU nano 7.2                        wide.txt
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
                               [ Read 65 lines ]
^G Help      ^O Write Out ^W Where Is  ^K Cut       ^T Execute   ^C Location
^X Exit      ^R Read File ^\ Replace   ^U Paste     ^J Justify   ^/ Go To Line
@ 1821

[exited]






















@ 1822

[exited]n






















