setopt PROMPT_SUBST
autoload -U colors && colors
git_branch() {
  local b
  b=$(git rev-parse --abbrev-ref HEAD 2>/dev/null) && echo " %F{magenta}[$b]%f"
}
PROMPT='%F{green}%n@%m%f %F{blue}%~%f$(git_branch) $(date +%H:%M) %# '
RPROMPT='%(?..%F{red}✘ %?%f)'
precmd() {
  print -Pn "\e]0;%~\a"
}
