# vttest-11-7-ecma-misc 24x80: tmux's screen (tmux 3.3a) at each checkpoint
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







@ 1570


         Menu 11.7: Miscellaneous ISO-6429 (ECMA-48) Tests

         Choose test type:

          0. Exit
          1. Protected-Area Tests
          2. Test Repeat (REP)
          3. Test Scroll-Down (SD)
          4. Test Scroll-Left (SL)
          5. Test Scroll-Right (SR)
          6. Test Scroll-Up (SU)

          Enter choice number (0 - 6):









@ 2363
 ++
  ++
   ++
    ++
     ++
      ++
       ++
        ++
         ++
          ++
           ++
            ++
             ++
              ++
               ++
                ++
                 ++
******************++************************************************************
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Repeat (REP)
There should be a diagonal of 2 +'s down to the row of *'s above this message.
The ++ in the row of *'s is the target.  If there are 11 +'s, ECMA-48 does
not prohibit this, but treats it as undefined behavior (still nonstandard).
Push <RETURN>
@ 2735


         Menu 11.7: Miscellaneous ISO-6429 (ECMA-48) Tests

         Choose test type:

          0. Exit
          1. Protected-Area Tests
          2. Test Repeat (REP)
          3. Test Scroll-Down (SD)
          4. Test Scroll-Left (SL)
          5. Test Scroll-Right (SR)
          6. Test Scroll-Up (SU)

          Enter choice number (0 - 6):









@ 3188



















********************
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Scroll-Down (SD)
There should be a horizontal row of *'s above, just above the message.
Push <RETURN>
@ 3560


         Menu 11.7: Miscellaneous ISO-6429 (ECMA-48) Tests

         Choose test type:

          0. Exit
          1. Protected-Area Tests
          2. Test Repeat (REP)
          3. Test Scroll-Down (SD)
          4. Test Scroll-Left (SL)
          5. Test Scroll-Right (SR)
          6. Test Scroll-Up (SU)

          Enter choice number (0 - 6):









@ 4028
                                                           *
                                                          *
                                                         *
                                                        *
                                                       *
                                                      *
                                                     *
                                                    *
                                                   *
                                                  *
                                                 *
                                                *
                                               *
                                              *
                                             *
                                            *
                                           *
                                          *
                                         *
                                        *
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Scroll-Left (SL)
There should be a vertical column of *'s centered above.
Push <RETURN>
@ 4400


         Menu 11.7: Miscellaneous ISO-6429 (ECMA-48) Tests

         Choose test type:

          0. Exit
          1. Protected-Area Tests
          2. Test Repeat (REP)
          3. Test Scroll-Down (SD)
          4. Test Scroll-Left (SL)
          5. Test Scroll-Right (SR)
          6. Test Scroll-Up (SU)

          Enter choice number (0 - 6):









@ 4869
                   *
                    *
                     *
                      *
                       *
                        *
                         *
                          *
                           *
                            *
                             *
                              *
                               *
                                *
                                 *
                                  *
                                   *
                                    *
                                     *
                                      *
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Scroll-Right (SR)
There should be a vertical column of *'s centered above.
Push <RETURN>
@ 5241


         Menu 11.7: Miscellaneous ISO-6429 (ECMA-48) Tests

         Choose test type:

          0. Exit
          1. Protected-Area Tests
          2. Test Repeat (REP)
          3. Test Scroll-Down (SD)
          4. Test Scroll-Left (SL)
          5. Test Scroll-Right (SR)
          6. Test Scroll-Up (SU)

          Enter choice number (0 - 6):









@ 5685
********************



















----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Scroll-Up (SU)
There should be a horizontal row of *'s above, on the top row.
Push <RETURN>
@ 6057


         Menu 11.7: Miscellaneous ISO-6429 (ECMA-48) Tests

         Choose test type:

          0. Exit
          1. Protected-Area Tests
          2. Test Repeat (REP)
          3. Test Scroll-Down (SD)
          4. Test Scroll-Left (SL)
          5. Test Scroll-Right (SR)
          6. Test Scroll-Up (SU)

          Enter choice number (0 - 6):









