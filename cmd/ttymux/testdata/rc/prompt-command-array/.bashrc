PS1='\u@\h:\w\$ '

__osc7() {
  printf '\033]7;file://%s%s\033\\' "$HOSTNAME" "$PWD"
}
__save_history() {
  history -a
}
PROMPT_COMMAND=(__save_history)
PROMPT_COMMAND+=(__osc7)
PROMPT_COMMAND+=('printf "\033]0;%s\007" "${PWD##*/}"')
