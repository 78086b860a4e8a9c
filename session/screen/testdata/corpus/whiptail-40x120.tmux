# whiptail-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 1172















                                        ┌─────────────┤ Question ├─────────────┐
                                        │                                      │
                                        │ Do you want to continue?             │
                                        │                                      │
                                        │                                      │
                                        │                                      │
                                        │                                      │
                                        │        <Yes>           <No>          │
                                        │                                      │
                                        └──────────────────────────────────────┘
                                         














@ 1215















                                        ┌─────────────┤ Question ├─────────────┐
                                        │                                      │
                                        │ Do you want to continue?             │
                                        │                                      │
                                        │                                      │
                                        │                                      │
                                        │                                      │
                                        │        <Yes>           <No>          │
                                        │                                      │
                                        └──────────────────────────────────────┘
                                         














@ 1285

[exited]






































