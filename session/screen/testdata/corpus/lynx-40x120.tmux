# lynx-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 2661
                                                                                                        A page (p1 of 2)
                                                      Heading 中文

   Some text with a link and emoji ❤️ ✔️.
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
-- press space for next page --
  Arrow keys: Up and Down to move.  Right to follow a link; Left to go back.
 H)elp O)ptions P)rint G)o M)ain screen Q)uit /=search [delete]=history list
@ 3182
                                                                                                        A page (p2 of 2)
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text

   cell 1 cell 2



























Commands: Use arrow keys to move, '?' for help, 'q' to quit, '<-' to go back.
  Arrow keys: Up and Down to move.  Right to follow a link; Left to go back.
 H)elp O)ptions P)rint G)o M)ain screen Q)uit /=search [delete]=history list
@ 3245
                                                                                                        A page (p2 of 2)
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text

   cell 1 cell 2



























You are already at the end of this document.
  Arrow keys: Up and Down to move.  Right to follow a link; Left to go back.
 H)elp O)ptions P)rint G)o M)ain screen Q)uit /=search [delete]=history list
@ 3405
                                                                                                        A page (p2 of 2)
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text
     * an item of a long list, wide 日本語 text

   cell 1 cell 2



























Are you sure you want to quit? (y) 
  Arrow keys: Up and Down to move.  Right to follow a link; Left to go back.
 H)elp O)ptions P)rint G)o M)ain screen Q)uit /=search [delete]=history list
@ 3456

[exited]






































