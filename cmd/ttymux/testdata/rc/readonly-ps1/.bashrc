readonly PS1='[\u@\h \W]\$ '
readonly HISTFILE=~/.bash_history
readonly HISTSIZE=5000
