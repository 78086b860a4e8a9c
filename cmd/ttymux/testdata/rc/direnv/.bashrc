PS1='\u@\h:\w\$ '
export EDITOR=vi
eval "$(direnv hook bash)"
