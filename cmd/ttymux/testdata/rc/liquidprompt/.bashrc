PS1='\u@\h:\w\$ '
# Only load Liquid Prompt in interactive shells, not from a script or from scp
[[ $- = *i* ]] && source /usr/share/liquidprompt/liquidprompt
