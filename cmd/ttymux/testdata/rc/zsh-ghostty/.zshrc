PROMPT='%F{yellow}%n%f@%m %F{cyan}%~%f
%# '
if [[ -n $GHOSTTY_RESOURCES_DIR ]]; then
  source "$GHOSTTY_RESOURCES_DIR"/shell-integration/zsh/ghostty-integration
fi
