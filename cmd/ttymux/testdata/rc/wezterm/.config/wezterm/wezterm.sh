# A reproduction of WezTerm's shell integration for bash (wezterm.sh).
[[ -z "${BASH_VERSION}" && -z "${ZSH_NAME}" ]] && return 0
[[ "${WEZTERM_SHELL_SKIP_ALL}" == "1" ]] && return 0
[[ $- != *i* ]] && return 0
# wezterm.sh embeds bash-preexec
[[ -z "${bash_preexec_imported:-}${__bp_imported:-}" ]] && . "$(dirname "${BASH_SOURCE[0]}")/bash-preexec.sh"

__wezterm_set_user_var() {
  if hash base64 2>/dev/null; then
    printf "\033]1337;SetUserVar=%s=%s\007" "$1" "$(echo -n "$2" | base64 | tr -d '\n')"
  fi
}
__wezterm_osc7() {
  printf "\033]7;file://%s%s\033\\" "${HOSTNAME}" "${PWD}"
}
__wezterm_semantic_precmd_executing=""
__wezterm_semantic_precmd() {
  local ret="$?"
  if [[ "$__wezterm_semantic_precmd_executing" != "0" ]]; then
    __wezterm_save_ps1="$PS1"
    __wezterm_save_ps2="$PS2"
    PS1='\[\e]133;P;k=i\a\]'$PS1'\[\e]133;B\a\]'
    PS2='\[\e]133;P;k=s\a\]'$PS2'\[\e]133;B\a\]'
  fi
  if [[ "$__wezterm_semantic_precmd_executing" != "" ]]; then
    printf "\033]133;D;%s;aid=%s\007" "$ret" "$$"
  fi
  printf "\033]133;A;cl=m;aid=%s\007" "$$"
  __wezterm_semantic_precmd_executing=0
}
__wezterm_semantic_preexec() {
  PS1="$__wezterm_save_ps1"
  PS2="$__wezterm_save_ps2"
  printf "\033]133;C;\007"
  __wezterm_semantic_precmd_executing=1
}
__wezterm_user_vars_precmd() {
  __wezterm_set_user_var "WEZTERM_PROG" ""
  __wezterm_set_user_var "WEZTERM_USER" "$(id -un)"
  __wezterm_set_user_var "WEZTERM_HOST" "${HOSTNAME}"
}
__wezterm_user_vars_preexec() {
  __wezterm_set_user_var "WEZTERM_PROG" "$1"
}
precmd_functions+=(__wezterm_semantic_precmd __wezterm_user_vars_precmd __wezterm_osc7)
preexec_functions+=(__wezterm_semantic_preexec __wezterm_user_vars_preexec)
true
