PS1='\u@\h:\w\$ '
HISTCONTROL=ignoredups

# title and timing with bash-preexec's zsh-like hooks
preexec() {
  __cmd_start=$SECONDS
  printf '\033]0;%s\007' "$1"
}
precmd() {
  if [[ -n ${__cmd_start:-} ]] && (( SECONDS - __cmd_start > 10 )); then
    printf 'took %ds\n' $((SECONDS - __cmd_start))
  fi
  unset __cmd_start
  printf '\033]0;%s@%s: %s\007' "$USER" "${HOSTNAME%%.*}" "${PWD/#$HOME/\~}"
}

# "Source this file at the end of your bash profile"
[[ -f ~/.bash-preexec.sh ]] && source ~/.bash-preexec.sh
