# Be strict: unset variables are errors
set -u
set -o pipefail
PS1='\u@\h:\w\$ '
alias ll='ls -l'
