PS1='\[\e[32m\]\u@\h\[\e[0m\] \W \$ '
alias ll='ls -alF'
alias gs='git status'
