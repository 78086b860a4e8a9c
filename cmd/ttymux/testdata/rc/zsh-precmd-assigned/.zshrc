autoload -Uz vcs_info
zstyle ':vcs_info:*' enable git
zstyle ':vcs_info:git:*' formats ' (%b)'
set_title() { print -Pn "\e]0;%n@%m: %~\a" }
show_command_title() { print -Pn "\e]0;$1\a" }
precmd_functions=(vcs_info set_title)
preexec_functions=(show_command_title)
setopt prompt_subst
PROMPT='%n@%m %~${vcs_info_msg_0_} %# '
