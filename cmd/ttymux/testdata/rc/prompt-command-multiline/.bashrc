PS1='[\u@\h \W]\$ '

PROMPT_COMMAND='
  __status=$?
  history -a
  printf "\033]0;%s@%s:%s\007" "$USER" "${HOSTNAME%%.*}" "${PWD/#$HOME/\~}"
'
