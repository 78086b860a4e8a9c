PS1='\u@\h:\w\$ '
if [[ -n "$WEZTERM_PANE" ]]; then
  source ~/.config/wezterm/wezterm.sh
fi
