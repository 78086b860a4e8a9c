PS1='\u@\h:\w\$ '
if [[ $- == *i* ]] && [[ -z "$TMUX" ]] && command -v tmux >/dev/null 2>&1; then
  tmux has-session -t work 2>/dev/null || tmux new-session -d -s work
fi
