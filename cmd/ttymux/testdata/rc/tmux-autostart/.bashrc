PS1='\u@\h:\w\$ '
# Start or attach tmux on SSH logins, never inside tmux or a script
if [[ $- == *i* ]] && [[ -n "$SSH_TTY" ]] && [[ -z "$TMUX" ]] && command -v tmux >/dev/null 2>&1; then
  tmux new-session -A -s main && exit
fi
