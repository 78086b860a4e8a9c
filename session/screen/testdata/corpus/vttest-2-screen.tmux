# vttest-2-screen 24x80: tmux's screen (tmux 3.3a) at each checkpoint
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



@ 1271
********************************************************************************
********************************************************************************
********************************************************************************

This should be three identical lines of *'s completely filling
the top of the screen without any empty lines between.
(Test of WRAP AROUND mode setting.)
Push <RETURN>
















@ 1771
      *     *     *     *     *     *     *     *     *     *     *     *     *
      *     *     *     *     *     *     *     *     *     *     *     *     *

Test of TAB setting/resetting. These two lines
should look the same. Push <RETURN>



















@ 2933
12345678901234567890123456789012345678901234567890123456789012345678901234567890
123456789012345678901234567890123456789012345678901
  This is 132 column mode, light background.
   This is 132 column mode, light background.
    This is 132 column mode, light background.
     This is 132 column mode, light background.
      This is 132 column mode, light background.
       This is 132 column mode, light background.
        This is 132 column mode, light background.
         This is 132 column mode, light background.
          This is 132 column mode, light background.
           This is 132 column mode, light background.
            This is 132 column mode, light background.
             This is 132 column mode, light background.
              This is 132 column mode, light background.
               This is 132 column mode, light background.
                This is 132 column mode, light background.
                 This is 132 column mode, light background.
                  This is 132 column mode, light background.
                   This is 132 column mode, light background.Push <RETURN>




@ 3908
1234567890123456789012345678901234567890123456789012345678901234567890123456789

  This is 80 column mode, light background.
   This is 80 column mode, light background.
    This is 80 column mode, light background.
     This is 80 column mode, light background.
      This is 80 column mode, light background.
       This is 80 column mode, light background.
        This is 80 column mode, light background.
         This is 80 column mode, light background.
          This is 80 column mode, light background.
           This is 80 column mode, light background.
            This is 80 column mode, light background.
             This is 80 column mode, light background.
              This is 80 column mode, light background.
               This is 80 column mode, light background.
                This is 80 column mode, light background.
                 This is 80 column mode, light background.
                  This is 80 column mode, light background.
                   This is 80 column mode, light background.Push <RETURN>




@ 5052
12345678901234567890123456789012345678901234567890123456789012345678901234567890
123456789012345678901234567890123456789012345678901
  This is 132 column mode, dark background.
   This is 132 column mode, dark background.
    This is 132 column mode, dark background.
     This is 132 column mode, dark background.
      This is 132 column mode, dark background.
       This is 132 column mode, dark background.
        This is 132 column mode, dark background.
         This is 132 column mode, dark background.
          This is 132 column mode, dark background.
           This is 132 column mode, dark background.
            This is 132 column mode, dark background.
             This is 132 column mode, dark background.
              This is 132 column mode, dark background.
               This is 132 column mode, dark background.
                This is 132 column mode, dark background.
                 This is 132 column mode, dark background.
                  This is 132 column mode, dark background.
                   This is 132 column mode, dark background.Push <RETURN>




@ 6009
1234567890123456789012345678901234567890123456789012345678901234567890123456789

  This is 80 column mode, dark background.
   This is 80 column mode, dark background.
    This is 80 column mode, dark background.
     This is 80 column mode, dark background.
      This is 80 column mode, dark background.
       This is 80 column mode, dark background.
        This is 80 column mode, dark background.
         This is 80 column mode, dark background.
          This is 80 column mode, dark background.
           This is 80 column mode, dark background.
            This is 80 column mode, dark background.
             This is 80 column mode, dark background.
              This is 80 column mode, dark background.
               This is 80 column mode, dark background.
                This is 80 column mode, dark background.
                 This is 80 column mode, dark background.
                  This is 80 column mode, dark background.
                   This is 80 column mode, dark background.Push <RETURN>




@ 8940











Push <RETURN>
Soft scroll down region [12..13] size 2 Line 29











@ 11856
Push <RETURN>
Soft scroll down region [1..24] size 24 Line 29
Soft scroll down region [1..24] size 24 Line 28
Soft scroll down region [1..24] size 24 Line 27
Soft scroll down region [1..24] size 24 Line 26
Soft scroll down region [1..24] size 24 Line 25
Soft scroll down region [1..24] size 24 Line 24
Soft scroll down region [1..24] size 24 Line 23
Soft scroll down region [1..24] size 24 Line 22
Soft scroll down region [1..24] size 24 Line 21
Soft scroll down region [1..24] size 24 Line 20
Soft scroll down region [1..24] size 24 Line 19
Soft scroll down region [1..24] size 24 Line 18
Soft scroll down region [1..24] size 24 Line 17
Soft scroll down region [1..24] size 24 Line 16
Soft scroll down region [1..24] size 24 Line 15
Soft scroll down region [1..24] size 24 Line 14
Soft scroll down region [1..24] size 24 Line 13
Soft scroll down region [1..24] size 24 Line 12
Soft scroll down region [1..24] size 24 Line 11
Soft scroll down region [1..24] size 24 Line 10
Soft scroll down region [1..24] size 24 Line 9
Soft scroll down region [1..24] size 24 Line 8
Soft scroll down region [1..24] size 24 Line 7
@ 14778











Push <RETURN>
Jump scroll down region [12..13] size 2 Line 29











@ 17694
Push <RETURN>
Jump scroll down region [1..24] size 24 Line 29
Jump scroll down region [1..24] size 24 Line 28
Jump scroll down region [1..24] size 24 Line 27
Jump scroll down region [1..24] size 24 Line 26
Jump scroll down region [1..24] size 24 Line 25
Jump scroll down region [1..24] size 24 Line 24
Jump scroll down region [1..24] size 24 Line 23
Jump scroll down region [1..24] size 24 Line 22
Jump scroll down region [1..24] size 24 Line 21
Jump scroll down region [1..24] size 24 Line 20
Jump scroll down region [1..24] size 24 Line 19
Jump scroll down region [1..24] size 24 Line 18
Jump scroll down region [1..24] size 24 Line 17
Jump scroll down region [1..24] size 24 Line 16
Jump scroll down region [1..24] size 24 Line 15
Jump scroll down region [1..24] size 24 Line 14
Jump scroll down region [1..24] size 24 Line 13
Jump scroll down region [1..24] size 24 Line 12
Jump scroll down region [1..24] size 24 Line 11
Jump scroll down region [1..24] size 24 Line 10
Jump scroll down region [1..24] size 24 Line 9
Jump scroll down region [1..24] size 24 Line 8
Jump scroll down region [1..24] size 24 Line 7
@ 17853

Origin mode test. This line should be at the bottom of the screen.




















This line should be the one above the bottom of the screen. Push <RETURN>

@ 18000
This line should be at the top of the screen. Push <RETURN>






















Origin mode test. This line should be at the bottom of the screen.
@ 18581
                   Graphic rendition test pattern:


vanilla                                bold

     underline                              bold underline

blink                                  bold blink

     underline blink                        bold underline blink

negative                               bold negative

     underline negative                     bold underline negative

blink negative                         bold blink negative

     underline blink negative               bold underline blink negative




Dark background. Push <RETURN>

@ 18628
                   Graphic rendition test pattern:


vanilla                                bold

     underline                              bold underline

blink                                  bold blink

     underline blink                        bold underline blink

negative                               bold negative

     underline negative                     bold underline negative

blink negative                         bold blink negative

     underline blink negative               bold underline blink negative




Light background. Push <RETURN>

@ 19973
AAAAA
AAAAA
AAAAA
AAAAA



           normal      bold        underscored blinking    reversed

stars:     **********  **********  **********  **********  **********

line:      ──────────  ──────────  ──────────  ──────────  ──────────

x'es:      xxxxxxxxxx  xxxxxxxxxx  xxxxxxxxxx  xxxxxxxxxx  xxxxxxxxxx

diamonds:  ◆◆◆◆◆◆◆◆◆◆  ◆◆◆◆◆◆◆◆◆◆  ◆◆◆◆◆◆◆◆◆◆  ◆◆◆◆◆◆◆◆◆◆  ◆◆◆◆◆◆◆◆◆◆




Test of the SAVE/RESTORE CURSOR feature. There should
be ten characters of each flavour, and a rectangle
of 5 x 4 A's filling the top left of the screen.
Push <RETURN>
@ 20655


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



@ 20747











                             That's all, folks!




[exited]







