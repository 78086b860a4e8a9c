# w3m-24x80 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 1568
Heading 中文

Some text with a link and emoji ❤️ ✔️.

  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
Viewing <A page>
@ 1889
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text

Viewing <A page>
@ 1889
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text

Viewing <A page>
@ 1938
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text
  • an item of a long list, wide 日本語 text

Do you want to exit w3m? (y/n)
@ 2026
Can't open history

[exited]





















