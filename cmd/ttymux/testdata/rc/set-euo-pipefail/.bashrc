# bash strict mode
set -euo pipefail
IFS=$'\n\t'
PS1='\u@\h:\w\$ '
