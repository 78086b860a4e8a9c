# vttest-11-5-ecma-cursor 24x80: tmux's screen (tmux 3.3a) at each checkpoint
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







@ 1778


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 2775





                   ****************************************
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   ****************************************

----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Character-Position-Absolute (HPA)
There should be a box-outline made of *'s in the middle of the screen.
Push <RETURN>

@ 3355


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 6411
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
1       2       3       4       5       6       7       8       9       10
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Cursor-Back-Tab (CBT)
The tab-stops should be numbered consecutively starting at 1 in screen.
Push <RETURN>
@ 6991


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 7986





                   ****************************************
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   *                                      *
                   ****************************************

----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Cursor-Character-Absolute (CHA)
There should be a box-outline made of *'s in the middle of the screen.
Push <RETURN>

@ 8566


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 9249
CHT with param == 1:
********************

CHT with param != 1:
+

Normal tabs:
        *       *       *       *       *       *       *       *       *      *
*       *       *       *       *       *       *       *       *       *










----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Cursor-Horizontal-Index (CHT)
The lines with *'s above should look the same (they wrap once)
Push <RETURN>

@ 9829


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 11363





**                 *
**
**
**
**
**
**
**
**
**
**
**
**                 **

----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Horizontal-Position-Relative (HPR)
There should be a box-outline made of *'s in the middle of the screen.
Push <RETURN>

@ 11943


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 12526





                  *****************************************
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *                                       *
                  *****************************************

----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Line-Position-Absolute (VPA)
There should be a box-outline made of *'s in the middle of the screen.
Push <RETURN>

@ 13106


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 13531
1.
2.
3.
4.
5.
6.
7.
8.
9.
10.
11.
12.
13.
14.
15.
16.
17.
18.
19.

Test Next-Line (CNL)
The lines above this should be numbered in sequence, from 1.
Push <RETURN>

@ 14111


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 14403
1.
2.
3.
4.
5.
6.
7.
8.
9.
10.
11.
12.
13.
14.
15.
16.
17.
18.
19.
20.
Test Previous-Line (CPL)
The lines above this should be numbered in sequence, from 1.
Push <RETURN>

@ 14983


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






@ 15715





                   ****************************************













----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8
Test Vertical-Position-Relative (VPR)
There should be a box-outline made of *'s in the middle of the screen.
Push <RETURN>

@ 16295


         Menu 11.5: ISO-6429 (ECMA-48) Cursor-Movement

         Choose test type:

          0. Exit
          1. Test Character-Position-Absolute (HPA)
          2. Test Cursor-Back-Tab (CBT)
          3. Test Cursor-Character-Absolute (CHA)
          4. Test Cursor-Horizontal-Index (CHT)
          5. Test Horizontal-Position-Relative (HPR)
          6. Test Line-Position-Absolute (VPA)
          7. Test Next-Line (CNL)
          8. Test Previous-Line (CPL)
          9. Test Vertical-Position-Relative (VPR)

          Enter choice number (0 - 9):






