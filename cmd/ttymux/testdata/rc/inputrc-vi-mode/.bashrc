set -o vi
PS1='\u@\h:\w\$ '
bind -m vi-insert '"\C-l": clear-screen'
