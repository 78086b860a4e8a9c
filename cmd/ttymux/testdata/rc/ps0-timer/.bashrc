PS1='\u@\h:\w\$ '
# PS0 is expanded after a command is read, before it runs
PS0='${PS1:(__timer_start=$SECONDS):0}'
__timer_show() {
  local s=$?
  if [[ -n ${__timer_start-} ]]; then
    local d=$((SECONDS - __timer_start))
    (( d >= 5 )) && printf '\033[2m(took %ss)\033[0m\n' "$d"
    unset __timer_start
  fi
  return $s
}
PROMPT_COMMAND="__timer_show"
