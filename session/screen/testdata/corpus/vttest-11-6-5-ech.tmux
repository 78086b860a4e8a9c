# vttest-11-6-5-ech 24x80: tmux's screen (tmux 3.3a) at each checkpoint
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



@ 1193


         Menu 11: Non-VT100 Tests

         Choose test type:

          0. Exit
          1. Test of VT220 features
          2. Test of VT320 features
          3. Test of VT420 features
          4. Test of VT520 features
          5. Test ISO-6429 cursor-movement
          6. Test ISO-6429 colors
          7. Test other ISO-6429 features
          8. Test XTERM special features

          Enter choice number (0 - 8):







@ 1790


         Menu 11.6: ISO 6429 colors

         Choose test type:

          0. Exit
          1. Disable color-switching
          2. Display color test-pattern
          3. Test SGR-0 color reset
          4. Test BCE-style clear line/display (ED, EL)
          5. Test BCE-style clear line/display (ECH, Indexing)
          6. Test of VT102-style features with BCE
          7. Test other ISO-6429 features with BCE
          8. Test screen features with BCE
          9. Test screen features with ISO 6429 SGR 22-27 codes

          Enter choice number (0 - 9):






@ 4094






                 *********************************************
                 * The screen background should be blue,     *
                 * with a box made of asterisks and this     *
                 * caption, in orange (non-bold yellow).     *
                 * There should be no cells with the         *
                 * default foreground or background.         *
                 *                                           *
                 *                                           *
                 *                                           *
                 *                                           *
                 *********************************************





Push <RETURN>

@ 4880






                 *********************************************
                 * The screen background should be black,    *
                 * with a box made of asterisks and this     *
                 * caption, in white (actually gray - it     *
                 * is not bold).  Only the asterisk box      *
                 * should be in color.                       *
                 *                                           *
                 *                                           *
                 *                                           *
                 *                                           *
                 *********************************************





Push <RETURN>

@ 5492


         Menu 11.6: ISO 6429 colors

         Choose test type:

          0. Exit
          1. Disable color-switching
          2. Display color test-pattern
          3. Test SGR-0 color reset
          4. Test BCE-style clear line/display (ED, EL)
          5. Test BCE-style clear line/display (ECH, Indexing)
          6. Test of VT102-style features with BCE
          7. Test other ISO-6429 features with BCE
          8. Test screen features with BCE
          9. Test screen features with ISO 6429 SGR 22-27 codes

          Enter choice number (0 - 9):






@ 7902






                 *********************************************
                 * The screen background should be blue,     *
                 * with a box made of asterisks and this     *
                 * caption, in orange (non-bold yellow).     *
                 * There should be no cells with the         *
                 * default foreground or background.         *
                 *                                           *
                 *                                           *
                 *                                           *
                 *                                           *
                 *********************************************





Push <RETURN>

@ 8794






                 *********************************************
                 * The screen background should be black,    *
                 * with a box made of asterisks and this     *
                 * caption, in white (actually gray - it     *
                 * is not bold).  Only the asterisk box      *
                 * should be in color.                       *
                 *                                           *
                 *                                           *
                 *                                           *
                 *                                           *
                 *********************************************





Push <RETURN>

@ 9406


         Menu 11.6: ISO 6429 colors

         Choose test type:

          0. Exit
          1. Disable color-switching
          2. Display color test-pattern
          3. Test SGR-0 color reset
          4. Test BCE-style clear line/display (ED, EL)
          5. Test BCE-style clear line/display (ECH, Indexing)
          6. Test of VT102-style features with BCE
          7. Test other ISO-6429 features with BCE
          8. Test screen features with BCE
          9. Test screen features with ISO 6429 SGR 22-27 codes

          Enter choice number (0 - 9):






