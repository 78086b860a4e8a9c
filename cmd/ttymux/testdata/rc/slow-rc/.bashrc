PS1='\u@\h:\w\$ '
# loading the node version manager takes a while
sleep 0.3
export NVM_DIR="$HOME/.nvm"
