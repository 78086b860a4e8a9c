# vttest-1-cursor 24x80: tmux's screen (tmux 3.3a) at each checkpoint
@ 738


         VT100 test program, version 2.7 (20221229)
         Line speed 38400bd
         Choose test type:

          0. Exit
          1. Test of cursor movements
          2. Test of screen features
          3. Test of character sets
          4. Test of double-sized characters
          5. Test of keyboard
          6. Test of terminal reports
          7. Test of VT52 mode
          8. Test of VT102 features (Insert/Delete Char/Line)
          9. Test of known bugs
          10. Test of reset and self-test
          11. Test non-VT100 (e.g., VT220, XTERM) terminals
          12. Modify test-parameters

          Enter choice number (0 - 12):



@ 5797
********************************************************************************
*++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*+        EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE        +*
*+        E                                                          E        +*
*+        E The screen should be cleared,  and have an unbroken bor- E        +*
*+        E der of *'s and +'s around the edge,   and exactly in the E        +*
*+        E middle  there should be a frame of E's around this  text E        +*
*+        E with  one (1) free position around it.    Push <RETURN>  E        +*
*+        E                                                          E        +*
*+        EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE        +*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*+                                                                            +*
*++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++*
********************************************************************************
@ 13227
********************************************************************************
*++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++*
*+                                                                             *
*+                                                                             *
*+                                                                             *
*+                                                                             *
*+                                                                             *
*+                                                                             *
*+                                  EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE*
*+                                  E
                                    EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE*
 The screen should be cleared,  and hader of *'s and +'s around the edge,   and
exactly in the                        middle  there should be a frame of E's aro
und this  text                        with  one (1) free position around it.
Push <RETURN>                                             EEEEEEEEEEEEEEEEEEEEE*
                                                          EEEEEEEEEEEEEEEEEEEEE*
*+                                                                             *
*+                                                                             *
*+                                                                             *
*+                                                                             *
*+                                                                             *
*+                                                                             *
++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++ *
********************************************************************************
@ 14002
Test of autowrap, mixing control and print characters.
The left/right margins should have letters in order:
M                                                                              m
N
n
O                                                                              o
P                                                                              p
Q                                                                              q
R
r
S                                                                              s
T                                                                              t
U                                                                              u
V
v
W                                                                              w
X                                                                              x
Y                                                                              y
Z
z

Push <RETURN>


@ 14811
Test of autowrap, mixing control and print characters.
The left/right margins should have letters in order:
M                                                                              m
N
n
O                                                                              o
P                                                                              p
Q                                                                              q
R
r
S                                                                              s
T                                                                              t
U                                                                              u
V
v
W                                                                              w
X                                                                              x
Y                                                                              y
Z
z

Push <RETURN>


@ 15148
Test of cursor-control characters inside ESC sequences.
Below should be four identical lines:

A B C D E F G H I
A B C D E F G H I
A B C D E F G H I
A B C D E F G H I

Push <RETURN>















@ 15960
Test of leading zeros in ESC sequences.
Two lines below you should see the sentence "This is a correct sentence".

This is a correct sentence















Push <RETURN>




@ 16642


         VT100 test program, version 2.7 (20221229)
         Line speed 38400bd
         Choose test type:

          0. Exit
          1. Test of cursor movements
          2. Test of screen features
          3. Test of character sets
          4. Test of double-sized characters
          5. Test of keyboard
          6. Test of terminal reports
          7. Test of VT52 mode
          8. Test of VT102 features (Insert/Delete Char/Line)
          9. Test of known bugs
          10. Test of reset and self-test
          11. Test non-VT100 (e.g., VT220, XTERM) terminals
          12. Modify test-parameters

          Enter choice number (0 - 12):



@ 16734











                             That's all, folks!




[exited]







