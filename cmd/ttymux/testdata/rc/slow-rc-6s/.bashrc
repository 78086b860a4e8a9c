PS1='\u@\h:\w\$ '
# conda, nvm and sdkman, each initialised from here; on a loaded laptop
# this takes seconds
sleep 6
export NVM_DIR="$HOME/.nvm"
