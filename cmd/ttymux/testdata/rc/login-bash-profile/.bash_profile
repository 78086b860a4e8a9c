# ~/.bash_profile
export EDITOR=vim
export PATH="$HOME/bin:$HOME/.local/bin:$PATH"
umask 022
# Get the aliases and functions
if [ -f ~/.bashrc ]; then
	. ~/.bashrc
fi
