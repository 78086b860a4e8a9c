PS1='\u@\h:\w\$ '
PS0=''
readonly PS0
