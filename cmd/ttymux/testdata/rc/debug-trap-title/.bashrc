PS1='\u@\h:\w\$ '
case "$TERM" in
xterm*|rxvt*)
    # show the command being run in the title bar
    trap 'echo -ne "\033]0;${BASH_COMMAND}\007"' DEBUG
    ;;
esac
