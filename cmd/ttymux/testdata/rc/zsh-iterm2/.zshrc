autoload -Uz compinit && compinit -C -d ~/.zcompdump
PROMPT='%m:%1~ %n%# '
test -e "${HOME}/.iterm2_shell_integration.zsh" && source "${HOME}/.iterm2_shell_integration.zsh"
