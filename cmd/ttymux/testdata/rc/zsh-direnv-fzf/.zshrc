bindkey -e
autoload -Uz compinit && compinit -C -d ~/.zcompdump
PROMPT='%F{blue}%~%f
%(?.%F{green}.%F{red})❯%f '
eval "$(direnv hook zsh)"
source /usr/share/doc/fzf/examples/key-bindings.zsh
source /usr/share/doc/fzf/examples/completion.zsh
export FZF_DEFAULT_OPTS='--height 40% --reverse'
